import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent, type BaseAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { MCPToolset, type MCPStderrLine } from '@troupe/mcp';
import { logFile, stdioServer } from './helpers.js';

// Regression: MCP connection errors stored URL passwords, command-line arguments and the server's
// stderr in the session's error event, readable by every client of the app. (A command is named
// by its executable only since; see regression/command-line-secrets.test.ts.)

const failingServer = fileURLToPath(new URL('./fixtures/failing-server.mjs', import.meta.url));
const API_KEY = 'sk-ant-api03-Zy1xWv2uTs3rQp4oNm5lKj6';
const TOKEN = 'plain-token-value-42';
const DB_PASSWORD = 'hunter2hunter2';
const ENV_TOKEN = 'env-only-secret-77';

const opened: MCPToolset[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((toolset) => toolset.close()));
});

/** Runs one turn and returns the session as stored, as JSON. */
async function storedSession(agent: BaseAgent): Promise<string> {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
  return JSON.stringify(
    await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }),
  );
}

describe('MCP errors stored in sessions carry no secrets', () => {
  it('a server launched with secret arguments that fails at start: the error names its executable only, and its stderr goes only to onStderr', async () => {
    const lines: MCPStderrLine[] = [];
    const toolset = new MCPToolset(
      {
        command: process.execPath,
        args: [failingServer, `--api-key=${API_KEY}`, '--token', TOKEN, `postgres://app:${DB_PASSWORD}@db/app`],
        env: { FIXTURE_TOKEN: ENV_TOKEN },
      },
      { onStderr: (line) => lines.push(line) },
    );
    opened.push(toolset);
    expect(toolset.server).toBe(`\`${process.execPath} …\``);

    const stored = await storedSession(new LlmAgent({ name: 'A', model: new ScriptedModel([]), tools: [toolset] }));
    expect(stored).toContain('"errorCode":"MCP_CONNECTION"');
    expect(stored).toContain('exited before completing the MCP handshake');
    for (const secret of [API_KEY, TOKEN, DB_PASSWORD, ENV_TOKEN, 'Zy1xWv2uTs3rQp4oNm5lKj6'])
      expect(stored).not.toContain(secret);
    // Nothing the server wrote to stderr is in the session.
    expect(stored).not.toContain('fatal:');
    expect(stored).not.toContain('/srv/internal/mcp-config.json');

    // The log gets every line, the last one without a line break too, with secrets masked.
    expect(lines.map((l) => l.line)).toEqual([
      'fatal: cannot start with --api-key=*** --token *** postgres://app:***@db/app',
      'fatal: config read from /srv/internal/mcp-config.json',
      'fatal: env token ***',
    ]);
    expect(lines.every((l) => l.server === toolset.server && l.tools.length === 0)).toBe(true);
  });

  it("a server that crashes mid-call: the tool's error response has no stderr, the log line names the tool", async () => {
    const lines: MCPStderrLine[] = [];
    const toolset = new MCPToolset(
      { command: process.execPath, args: [stdioServer], env: { MCP_FIXTURE_LOG: logFile() } },
      { onStderr: (line) => lines.push(line) },
    );
    opened.push(toolset);
    const model = new ScriptedModel([{ functionCalls: [{ name: 'crash' }] }, 'It crashed.']);
    const stored = await storedSession(new LlmAgent({ name: 'A', model, tools: [toolset] }));
    expect(stored).toContain("closed the connection while tool 'crash' was running");
    expect(stored).not.toContain('crashing on purpose');
    expect(lines).toContainEqual({ server: toolset.server, line: 'fixture: crashing on purpose', tools: ['crash'] });
  });

  it('a URL with user:password@ is refused when the toolset is made, masked; a URL with a secret query that cannot be reached stores it masked', () => {
    expect(() => new MCPToolset({ url: `http://alice:${DB_PASSWORD}@127.0.0.1:1/mcp` })).toThrow(
      "MCPToolset: 'url' must not hold a user name or password ('http://alice:***@127.0.0.1:1/mcp'): fetch refuses such URLs. Send the credentials in 'headers' instead",
    );
    const error = (() => {
      try {
        return new MCPToolset({ url: `http://alice:${DB_PASSWORD}@127.0.0.1:1/mcp` });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(String(error)).not.toContain(DB_PASSWORD);
  });

  it('a URL with a secret query parameter that cannot be reached: the stored error masks it', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const toolset = new MCPToolset({
      url: `http://127.0.0.1:${port}/mcp?api_key=${TOKEN}`,
      headers: { 'X-Api-Key': ENV_TOKEN },
    });
    opened.push(toolset);
    expect(toolset.server).toBe(`http://127.0.0.1:${port}/mcp?api_key=***`);
    const stored = await storedSession(new LlmAgent({ name: 'A', model: new ScriptedModel([]), tools: [toolset] }));
    expect(stored).toContain(
      `Cannot reach MCP server at http://127.0.0.1:${port}/mcp?api_key=***: connection refused.`,
    );
    for (const secret of [TOKEN, ENV_TOKEN]) expect(stored).not.toContain(secret);
  });

  it('a missing command with a secret flag value: the error names the executable, not its arguments', async () => {
    const toolset = new MCPToolset({
      command: 'troupe-no-such-mcp-server',
      args: ['--password', DB_PASSWORD, '--stdio'],
    });
    const stored = await storedSession(new LlmAgent({ name: 'A', model: new ScriptedModel([]), tools: [toolset] }));
    expect(stored).toContain(
      "Cannot start MCP server `troupe-no-such-mcp-server …`: the command 'troupe-no-such-mcp-server' was not found.",
    );
    expect(stored).not.toContain(DB_PASSWORD);
  });
});
