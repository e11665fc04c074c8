import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

// zod, ajv and yaml are loaded when first used (a schema checked, a definition file read), not by
// `import '@troupe/core'`: zod alone was a tenth of a second and 3 MB of heap of every import.
describe('importing @troupe/core', () => {
  it('loads none of zod, ajv and yaml', async () => {
    const loader = fileURLToPath(new URL('./record-imports-loader.mjs', import.meta.url));
    const { stderr } = await run(
      process.execPath,
      ['--no-warnings', '--experimental-loader', loader, '--input-type=module', '-e', "await import('@troupe/core');"],
      { timeout: 60_000 },
    );
    const packages = stderr
      .split('\n')
      .filter((line) => line.startsWith('import '))
      .map((line) => line.slice('import '.length));
    expect(packages).toContain('@troupe/core');
    expect(packages.filter((name) => /^(zod|ajv|yaml)(\/|$)/.test(name))).toEqual([]);
  });
});
