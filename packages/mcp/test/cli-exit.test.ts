import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../../cli/bin/troupe.js');

// Regression: `troupe run` never closed its runner, so the MCP server child process kept Node
// running after the answer and the command never exited.
describe('troupe run with an MCP tool', () => {
  it('exits by itself after a one-shot run', async () => {
    if (!existsSync(join(here, '../../cli/dist/main.js')))
      throw new Error('Build first: npm run build (this test runs the built CLI).');
    // A hang is caught by execFile's timeout, which kills the command and rejects; no wall-clock
    // bound beyond that, since a busy machine can make a correct run slow.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, 'run', join(here, 'fixtures/calculator.yaml'), '--input', 'add 2 and 3', '--memory'],
      {
        timeout: 60_000,
        env: { ...process.env, TROUPE_MCP_TEST_LOG: join(tmpdir(), `troupe-mcp-cli-exit-${process.pid}.log`) },
      },
    );
    expect(stdout).toContain('Calculator');
  }, 90_000);
});
