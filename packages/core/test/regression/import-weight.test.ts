import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir.js';

const run = promisify(execFile);

/** The bare packages a fresh `node` process resolves while it imports `entry`. */
async function packagesImportedBy(entry: string): Promise<string[]> {
  const loader = fileURLToPath(new URL('./record-imports-loader.mjs', import.meta.url));
  const record = join(tempDir('troupe-imports-'), 'imports.txt');
  await run(
    process.execPath,
    ['--no-warnings', '--experimental-loader', loader, '--input-type=module', '-e', `await import('${entry}');`],
    { timeout: 60_000, env: { ...process.env, TROUPE_RECORD_IMPORTS: record } },
  );
  return readFileSync(record, 'utf8').split('\n').filter(Boolean);
}

// zod, ajv and yaml are loaded when first used (a schema checked, a definition file read), not by
// `import '@troupe/core'`: zod alone was a tenth of a second and 3 MB of heap of every import.
describe('importing @troupe/core', () => {
  it('loads none of zod, ajv and yaml', async () => {
    const packages = await packagesImportedBy('@troupe/core');
    expect(packages).toContain('@troupe/core');
    expect(packages.filter((name) => /^(zod|ajv|yaml)(\/|$)/.test(name))).toEqual([]);
  });

  it('sees a package an entry does import (the check can fail)', async () => {
    // The patterns entry's plan schemas are zod schemas.
    expect(await packagesImportedBy('@troupe/core/patterns')).toContain('zod');
  });
});
