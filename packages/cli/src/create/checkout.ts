import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The root of the Troupe repository this CLI runs from, or undefined when it runs from an
 * installed copy. A checkout is recognised by the CLI's package folder sitting at
 * `<root>/packages/cli` under a package.json whose workspaces hold `packages/*`; an installed
 * `@troupe/cli` sits in `node_modules/@troupe/cli` and has no such parent.
 */
export async function findCheckout(): Promise<string | undefined> {
  // Two levels up from src/create/ (sources) or dist/create/ (built) is the CLI's package folder.
  const cliFolder = fileURLToPath(new URL('../../', import.meta.url));
  const root = join(cliFolder, '..', '..');
  let manifest: { workspaces?: unknown };
  try {
    manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { workspaces?: unknown };
  } catch {
    return undefined;
  }
  const workspaces = Array.isArray(manifest.workspaces) ? manifest.workspaces : [];
  return workspaces.includes('packages/*') ? root : undefined;
}
