import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ConfigurationError } from '../errors.js';
import type { CodeFile } from './code-executor.js';

/**
 * The folder name of a workspace: its safe characters (the rest become `_`), cut to 80, then a
 * short hash of the whole name, so `a/b` and `a_b` never share a folder.
 */
export function workspaceFolderName(workspace: string): string {
  if (typeof workspace !== 'string' || workspace.trim() === '') {
    throw new ConfigurationError(
      `A code execution request needs a 'workspace' name; got ${JSON.stringify(workspace)}. Name it, e.g. '<appName>/<userId>/<sessionId>'.`,
    );
  }
  const safe = workspace
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 80);
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 10);
  return `${safe}-${hash}`;
}

/** True when `path` is `folder` or inside it (both already resolved). */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The segments of a file path given in a request, refusing absolute paths and `..`. */
export function checkRelativePath(path: string): string[] {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    throw new ConfigurationError(
      `A code execution file path must be a non-empty string without NUL characters; got ${JSON.stringify(path)}. Give a path relative to the working folder, e.g. 'data/input.csv'.`,
    );
  }
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) {
    throw new ConfigurationError(
      `Code execution file path '${path}' is absolute; files can only be written inside the working folder. Give a relative path such as 'data/input.csv'.`,
    );
  }
  const segments = path.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) {
    throw new ConfigurationError(
      `Code execution file path '${path}' contains '..' and could leave the working folder. Give a path inside it, e.g. 'data/input.csv'.`,
    );
  }
  if (segments.length === 0) {
    throw new ConfigurationError(
      `Code execution file path '${path}' names the working folder itself, not a file. Add a file name, e.g. 'data/input.csv'.`,
    );
  }
  return segments;
}

/** Creates the folder (and its parents) and answers its resolved path. */
export async function ensureFolder(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  return realpath(path);
}

/**
 * Writes the files into `folder` (a resolved path). Each parent folder is created one level at a
 * time and resolved, so a symbolic link (left by an earlier run) that points outside the folder is
 * refused before anything is written through it; the file itself is opened without following a link.
 */
export async function writeFilesInFolder(folder: string, files: readonly CodeFile[]): Promise<void> {
  for (const file of files) {
    const segments = checkRelativePath(file.path);
    let parent = folder;
    for (const segment of segments.slice(0, -1)) {
      parent = join(parent, segment);
      await mkdir(parent).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      const resolved = await realpath(parent);
      if (!isInside(folder, resolved)) {
        throw new ConfigurationError(
          `Code execution file path '${file.path}' goes through '${relative(folder, parent)}', a symbolic link to '${resolved}' outside the working folder. Remove the link or write the file elsewhere in the folder.`,
        );
      }
      if (!(await lstat(resolved)).isDirectory()) {
        throw new ConfigurationError(
          `Code execution file path '${file.path}' needs '${relative(folder, parent)}' to be a folder, but it is a file. Choose another path.`,
        );
      }
      parent = resolved;
    }
    const target = join(parent, segments.at(-1)!);
    const handle = await open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    ).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP') {
        throw new ConfigurationError(
          `Code execution file path '${file.path}' is a symbolic link in the working folder; files are never written through links. Remove the link or choose another path.`,
        );
      }
      throw error;
    });
    try {
      await handle.writeFile(file.content);
    } finally {
      await handle.close();
    }
  }
}
