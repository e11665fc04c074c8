import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { mediaTypeOfFile } from '../artifacts/media-types.js';
import { ToolArgumentsError } from '../tools/function-tool.js';
import type { AgentSkill } from './agent-skill.js';
import { SKILL_FILE } from './load-skills.js';

/** How many resource paths `load_skill` lists at most; a skill with more is told so. */
export const MAX_LISTED_FILES = 500;

/**
 * The skill's resources: its files other than `SKILL.md`, relative to its folder with `/`
 * separators, sorted. Hidden files and folders are left out, and so are links that lead outside
 * the skill's folder. At most {@link MAX_LISTED_FILES}; `more` says whether there were others.
 */
export async function listSkillFiles(skill: AgentSkill): Promise<{ paths: string[]; more: boolean }> {
  const root = await realpath(skill.dir);
  const paths: string[] = [];
  // Real folders already walked: a link to a folder that contains it must not loop forever.
  const walked = new Set<string>([root]);
  let more = false;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (more) return;
      if (entry.name.startsWith('.') || (prefix === '' && entry.name === SKILL_FILE)) continue;
      const real = await realpath(join(dir, entry.name)).catch(() => undefined);
      if (real === undefined || !isInside(root, real)) continue;
      const info = await stat(real);
      const shown = `${prefix}${entry.name}`;
      if (info.isDirectory()) {
        if (walked.has(real)) continue;
        walked.add(real);
        await walk(real, `${shown}/`);
      } else if (info.isFile()) {
        if (paths.length >= MAX_LISTED_FILES) more = true;
        else paths.push(shown);
      }
    }
  };
  await walk(root, '');
  return { paths, more };
}

/**
 * The absolute path of a resource of the skill, after checking that it stays inside the skill's
 * folder: `..` segments, absolute paths and links that lead outside are refused with a
 * {@link ToolArgumentsError} naming the path (the model reads it).
 */
export async function resolveSkillFile(skill: AgentSkill, path: string, what = 'resource'): Promise<string> {
  const refuse = (problem: string): never => {
    throw new ToolArgumentsError(`The ${what} path ${JSON.stringify(path)} of skill '${skill.name}' ${problem}`);
  };
  if (typeof path !== 'string' || path.trim() === '') refuse('is empty. Use a path listed by load_skill.');
  if (path.includes('\0')) refuse('contains a NUL character. Use a path listed by load_skill.');
  if (isAbsolute(path) || /^[A-Za-z]:|^[\\/]/.test(path)) {
    refuse(
      `is absolute. Use a path relative to the skill's folder, as load_skill lists them (e.g. 'references/guide.md').`,
    );
  }
  if (path.split(/[\\/]/).includes('..')) {
    refuse(`leaves the skill's folder ('..'). Use a path inside it, as load_skill lists them.`);
  }
  const root = await realpath(skill.dir);
  const full = join(root, path);
  const real = await realpath(full).catch(() => undefined);
  if (real === undefined) {
    const linked = await lstat(full).catch(() => undefined);
    refuse(
      linked ? 'is a broken link.' : `does not exist. Call load_skill('${skill.name}') for the list of its files.`,
    );
  }
  if (!isInside(root, real!)) refuse(`is a link that leads outside the skill's folder; it cannot be read.`);
  if (!(await stat(real!)).isFile()) refuse(`is a folder, not a file. Use a file path listed by load_skill.`);
  return real!;
}

/** How large a text resource may be before it is cut. */
export const MAX_RESOURCE_CHARS = 100_000;

/**
 * A resource as the model gets it: text as text (cut at {@link MAX_RESOURCE_CHARS} characters with a
 * marker), binary files as a note with their media type and size (their bytes would mean nothing to
 * the model as text).
 */
export async function readSkillResource(
  file: string,
  path: string,
): Promise<
  | { path: string; content: string; truncated?: true }
  | { path: string; binary: true; mimeType: string; size: number; note: string }
> {
  const bytes = await readFile(file);
  if (isBinary(bytes)) {
    const mimeType = mediaTypeOfFile(path);
    return {
      path,
      binary: true,
      mimeType,
      size: bytes.byteLength,
      note: `This is a binary file (${mimeType}, ${bytes.byteLength} bytes); it cannot be shown as text. Scripts of the skill can use it.`,
    };
  }
  const text = bytes.toString('utf8');
  if (text.length <= MAX_RESOURCE_CHARS) return { path, content: text };
  return {
    path,
    content: `${text.slice(0, MAX_RESOURCE_CHARS)}\n[... cut: the file has ${text.length} characters; only the first ${MAX_RESOURCE_CHARS} are shown.]`,
    truncated: true,
  };
}

/** A NUL byte or bytes that are not UTF-8 mark a binary file. */
function isBinary(bytes: Buffer): boolean {
  if (bytes.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
