import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { findAppEntry } from '@troupe/server';
import { TYPESCRIPT_EXTENSIONS } from './import-module.js';
import { isAgentDefinition } from './load-agent.js';

/**
 * Whether the apps served from `target` (an apps folder or one agent file) may need tsx: an entry
 * or a file beside it is TypeScript, or an entry is a YAML/JSON definition (which may name `.ts`
 * tools or agents). tsx's hooks run on a thread of their own that costs a server about 35 MB of
 * resident memory, so `troupe api` registers them only then. Files are listed, never run.
 */
export async function typescriptNeeded(target: string, kind: 'file' | 'directory'): Promise<boolean> {
  if (kind === 'file') return isTypeScript(target) || isAgentDefinition(target);
  const folders = await readdir(target, { withFileTypes: true });
  for (const folder of folders) {
    if (!folder.isDirectory() || folder.name.startsWith('.') || folder.name === 'node_modules') continue;
    const path = join(target, folder.name);
    const entry = await findAppEntry(path);
    if (!entry) continue;
    if (isAgentDefinition(entry)) return true;
    const files = await readdir(path);
    if (files.some(isTypeScript)) return true;
  }
  return false;
}

function isTypeScript(file: string): boolean {
  return TYPESCRIPT_EXTENSIONS.has(extname(file)) && !file.endsWith('.d.ts');
}
