import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { displayPath } from '../definitions/definition-error.js';
import { ConfigurationError } from '../errors.js';
import type { AgentSkill } from './agent-skill.js';
import { parseSkillFile, type ParsedSkill } from './parse-skill-file.js';

/** The file that makes a folder a skill. */
export const SKILL_FILE = 'SKILL.md';

/**
 * Reads every skill of the given folders, in order. A folder that holds a `SKILL.md` is one skill;
 * any other folder is a folder of skills, each of its subfolders a skill (hidden folders and
 * `node_modules` are skipped). Throws a {@link ConfigurationError} for a missing folder, a folder
 * with no skills, a subfolder without `SKILL.md`, an invalid `SKILL.md` (with its file and line),
 * and a name used twice (with both files).
 */
export async function loadSkills(dirs: readonly string[]): Promise<Map<string, AgentSkill>> {
  const yaml = await import('yaml');
  const found = new Map<string, ParsedSkill>();
  for (const dir of dirs) {
    for (const file of await skillFiles(resolve(dir))) {
      const parsed = parseSkillFile(yaml, await readFile(file, 'utf8'), file);
      const twin = found.get(parsed.skill.name);
      if (twin) {
        throw new ConfigurationError(
          `${displayPath(file)}:${parsed.nameLine}: the skill name '${parsed.skill.name}' is also used by ${displayPath(twin.skill.file)}:${twin.nameLine}. Skill names must be unique across a SkillToolset's folders: rename one skill (and its folder), or leave one folder out.`,
        );
      }
      found.set(parsed.skill.name, parsed);
    }
  }
  return new Map([...found].map(([name, parsed]) => [name, parsed.skill]));
}

/** The `SKILL.md` files of one folder given to the toolset, sorted by folder name. */
async function skillFiles(dir: string): Promise<string[]> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new ConfigurationError(
      `SkillToolset: the skills folder '${displayPath(dir)}' ${info ? 'is not a folder' : 'does not exist'}. Give a folder of skill folders (each with a ${SKILL_FILE}) or one skill folder.`,
    );
  }
  if (await isFile(join(dir, SKILL_FILE))) return [join(dir, SKILL_FILE)];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || !(await isFolder(dir, entry))) continue;
    const file = join(dir, entry.name, SKILL_FILE);
    if (!(await isFile(file))) {
      throw new ConfigurationError(
        `SkillToolset: the folder '${displayPath(join(dir, entry.name))}' in the skills folder '${displayPath(dir)}' has no ${SKILL_FILE}. Every folder in a skills folder is a skill: add its ${SKILL_FILE} (spelled in capitals), or move the folder out.`,
      );
    }
    files.push(file);
  }
  if (files.length === 0) {
    throw new ConfigurationError(
      `SkillToolset: the skills folder '${displayPath(dir)}' holds no skills. Put skill folders in it (each with a ${SKILL_FILE}), or point the toolset at a folder that has them.`,
    );
  }
  return files;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** A subfolder, or a link to one (skills are often linked in from elsewhere). */
async function isFolder(dir: string, entry: Dirent): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  return (await stat(join(dir, entry.name)).catch(() => undefined))?.isDirectory() ?? false;
}
