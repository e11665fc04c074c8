import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { MCPConnectionError, MCPToolset, type MCPStderrLine } from '@troupe/mcp';

// Regression (issue #28 item 14): secrets given to an MCP server on its command line appeared in
// the error a connection failure stores in the session and returns. Only `--api-key=…` and
// `--token …` forms were masked: `--db-pass=VALUE` (a secret-named flag the redactor did not know),
// `--db-password VALUE`, a short flag such as `-p VALUE` and the password of a key=value connection
// string went through. No rule on flag names can know every short flag, so these messages now name
// only the executable: the arguments are left out altogether.

const failingServer = fileURLToPath(new URL('../fixtures/failing-server.mjs', import.meta.url));
const DB_PASS = 'db-pass-value-1';
const DB_PASSWORD = 'db-password-value-2';
const SHORT = 'short-flag-value-3';
const URL_PASSWORD = 'url-password-value-4';
const CONN_PASSWORD = 'conn-password-value-5';
const DASHED = '-dashed-secret-6';
const SECRETS = [DB_PASS, DB_PASSWORD, SHORT, URL_PASSWORD, CONN_PASSWORD, DASHED];
const secretArgs = [
  `--db-pass=${DB_PASS}`,
  '--db-password',
  DB_PASSWORD,
  '-p',
  SHORT,
  `postgres://app:${URL_PASSWORD}@db/app`,
  `Server=db;User Id=app;Password=${CONN_PASSWORD};`,
  '--pw',
  DASHED,
];

const opened: MCPToolset[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((toolset) => toolset.close()));
});

/** Runs one turn with the toolset; returns the stored session as JSON and the run's error. */
async function runWith(toolset: MCPToolset): Promise<{ stored: string; error: Error | undefined }> {
  opened.push(toolset);
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: 'A', model: new ScriptedModel([]), tools: [toolset] }),
  });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  return { stored: JSON.stringify(stored), error: result.error };
}

function expectNoSecrets(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('an MCP command line with secrets, in the errors of a failed connection', () => {
  it('a command that is not found: the stored event and the returned error name the executable only', async () => {
    const toolset = new MCPToolset({ command: 'troupe-no-such-mcp-server', args: secretArgs });
    expect(toolset.server).toBe('`troupe-no-such-mcp-server …`');
    const { stored, error } = await runWith(toolset);
    const message =
      "Cannot start MCP server `troupe-no-such-mcp-server …`: the command 'troupe-no-such-mcp-server' was not found.";
    expect(stored).toContain('"errorCode":"MCP_CONNECTION"');
    expect(stored).toContain(message);
    expect(error).toBeInstanceOf(MCPConnectionError);
    expect(error!.message).toContain(message);
    expect((error as MCPConnectionError).server).toBe('`troupe-no-such-mcp-server …`');
    expectNoSecrets(stored);
    expectNoSecrets(error!.message);
    expectNoSecrets(String((error as MCPConnectionError).server));
  });

  it('a server that exits before the handshake: the same, and its stderr lines mask the secret-named flags', async () => {
    const lines: MCPStderrLine[] = [];
    const toolset = new MCPToolset(
      { command: process.execPath, args: [failingServer, ...secretArgs] },
      { onStderr: (line) => lines.push(line) },
    );
    const { stored, error } = await runWith(toolset);
    const label = `\`${process.execPath} …\``;
    expect(stored).toContain(`MCP server ${label} exited before completing the MCP handshake.`);
    expect(error!.message).toContain(`MCP server ${label} exited before completing the MCP handshake.`);
    expectNoSecrets(stored);
    expectNoSecrets(error!.message);
    // The server echoed its arguments to stderr: the values of secret-named flags (both forms, a
    // value that starts with '-' too) and passwords of connection strings are masked there.
    const echoed = lines.find((l) => l.line.startsWith('fatal: cannot start with'))!;
    expect(echoed.server).toBe(label);
    for (const secret of [DB_PASS, DB_PASSWORD, URL_PASSWORD, CONN_PASSWORD, DASHED])
      expect(echoed.line).not.toContain(secret);
    expect(echoed.line).toContain('--db-pass=***');
    expect(echoed.line).toContain('--db-password ***');
    expect(echoed.line).toContain('--pw ***');
  });
});
