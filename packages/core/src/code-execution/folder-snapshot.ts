import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WrittenFile } from './code-executor.js';

/** The size and modification time of each regular file in a folder, by relative path. */
export type FolderSnapshot = Map<string, { size: number; mtimeMs: number }>;

/** The prefix of the script files executors place in the folder for one run (never reported). */
export const RUN_SCRIPT_PREFIX = '.troupe-run-';

/** How many files a snapshot records at most: a run that writes more is reported in part. */
const MAX_FILES = 10_000;

/**
 * Records the regular files under `folder`, recursively. Symbolic links are neither followed nor
 * recorded: a link to a file outside must not make that file's bytes part of the run's result.
 */
export async function snapshotFolder(folder: string): Promise<FolderSnapshot> {
  const snapshot: FolderSnapshot = new Map();
  const pending: string[] = [''];
  while (pending.length > 0 && snapshot.size < MAX_FILES) {
    const dir = pending.pop()!;
    const entries = await readdir(join(folder, dir), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      // A folder removed by a process still running (a killed run's leftovers) is simply gone.
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && !(dir === '' && entry.name.startsWith(RUN_SCRIPT_PREFIX))) {
        const stats = await lstat(join(folder, path)).catch(() => undefined);
        if (stats?.isFile()) snapshot.set(path, { size: stats.size, mtimeMs: stats.mtimeMs });
      }
    }
  }
  return snapshot;
}

/**
 * The files of `after` that are new or changed (size or modification time) since `before`, in path
 * order, each with its bytes when it is at most `maxReadBytes` long (none when that is 0).
 */
export async function changedFiles(
  folder: string,
  before: FolderSnapshot,
  after: FolderSnapshot,
  maxReadBytes: number,
): Promise<WrittenFile[]> {
  const changed: WrittenFile[] = [];
  const paths = [...after.keys()].sort();
  for (const path of paths) {
    const now = after.get(path)!;
    const then = before.get(path);
    if (then && then.size === now.size && then.mtimeMs === now.mtimeMs) continue;
    const file: WrittenFile = { path, size: now.size };
    if (now.size <= maxReadBytes) {
      const content = await readNoFollow(join(folder, path), maxReadBytes);
      if (content) {
        file.content = content;
        file.size = content.byteLength;
      }
    }
    changed.push(file);
  }
  return changed;
}

// Opened without following links, so a file swapped for a link after the snapshot is not read.
async function readNoFollow(path: string, maxBytes: number): Promise<Uint8Array | undefined> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}
