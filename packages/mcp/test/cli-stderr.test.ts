import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '../../cli/bin/troupe.js');

// An MCP server's stderr is no longer put in error messages (they are stored in sessions); the
// troupe CLI shows it in the terminal instead, masked, naming the server.
describe('troupe run with an MCP server that fails at start', () => {
  it("prints the server's stderr lines to the terminal, masked; the error names the server by its executable", async () => {
    if (!existsSync(join(here, '../../cli/dist/main.js')))
      throw new Error('Build first: npm run build (this test runs the built CLI).');
    const outcome = await promisify(execFile)(
      process.execPath,
      [cli, 'run', join(here, 'fixtures/failing.yaml'), '--input', 'hi', '--memory'],
      { timeout: 20_000 },
    ).then(
      () => ({ stderr: '', code: 0 }),
      (error: { stderr: string; code: number }) => error,
    );
    expect(outcome.code).not.toBe(0);
    const server = 'MCP server `node …`';
    expect(outcome.stderr).toContain(`troupe: ${server}: fatal: config read from /srv/internal/mcp-config.json\n`);
    expect(outcome.stderr).toContain(`${server} exited before completing the MCP handshake.`);
    expect(outcome.stderr).not.toContain('0123456789abcdefghij');
  });
});
