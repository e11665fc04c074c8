import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { discoverApps, findAppEntry } from '@troupe/server';

/**
 * What `troupe api|web|worker <path>` serves:
 * - `'apps'`: a folder of app folders (each with its agent.ts, agent.yaml, ...), like
 *   `adk api_server <agents_dir>`;
 * - `'one'`: one agent file, or a folder that is itself an app: it holds an entry file, as
 *   `troupe run <dir>` finds it (the project `troupe create` makes), and no app folders. Its app
 *   name is the folder's, as `troupe run` names it; for a file, the loader's (`appName`) is used.
 * Undefined when nothing is at `path`. Files are listed, never run.
 */
export type ServedApps = { kind: 'apps'; dir: string } | { kind: 'one'; file: string; appName: string | undefined };

export async function servedApps(path: string): Promise<ServedApps | undefined> {
  let directory: boolean;
  try {
    directory = (await stat(path)).isDirectory();
  } catch {
    return undefined;
  }
  if (!directory) return { kind: 'one', file: path, appName: undefined };
  // Discovery imports nothing: the importer is only called when an app is first used.
  const apps = await discoverApps(path, { importModule: () => Promise.reject(new Error('not imported')) });
  if (apps.length > 0) return { kind: 'apps', dir: path };
  const entry = await findAppEntry(path);
  return entry === undefined ? { kind: 'apps', dir: path } : { kind: 'one', file: entry, appName: basename(path) };
}
