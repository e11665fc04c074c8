import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmAgent, getFunctionResponses, type FunctionDeclaration, type RunResult } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { MCPConnectionError, MCPToolset, type MCPConnection, type MCPToolsetOptions } from '@troupe/mcp';
import { chat, isAlive, logFile, logLines, pids, stdioServer, waitFor } from './helpers.js';

const opened: MCPToolset[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((toolset) => toolset.close()));
});

/** A toolset on the stdio fixture server, noting what happens in `log`. */
function fixtureToolset(log: string, options?: MCPToolsetOptions): MCPToolset {
  const toolset = new MCPToolset(
    { command: process.execPath, args: [stdioServer], env: { MCP_FIXTURE_LOG: log } },
    options,
  );
  opened.push(toolset);
  return toolset;
}

const responses = (result: RunResult) => result.events.flatMap(getFunctionResponses).map((r) => r.response);

describe('MCPToolset over stdio (a real server as a child process)', () => {
  it("offers the server's tools with its schemas, calls them with the model's arguments and returns their results", async () => {
    const log = logFile();
    const toolset = fixtureToolset(log);
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'add', args: { a: 2, b: 3 } },
          { name: 'echo', args: { text: 'hello' } },
        ],
      },
      'The sum is 5.',
    ]);
    const { runner, turn } = await chat(new LlmAgent({ name: 'Calc', model, tools: [toolset] }));
    expect(pids(log)).toEqual([]); // connects lazily, on the first run

    const result = await turn('add 2 and 3');
    expect(result.status).toBe('completed');
    expect(result.output).toBe('The sum is 5.');
    expect(responses(result)).toEqual([{ result: '5', structuredContent: { sum: 5 } }, { result: 'hello' }]);

    // The declarations are the server's, as the SDK's own client lists them.
    const client = new Client({ name: 'check', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [stdioServer], stderr: 'ignore' }),
    );
    const listed = (await client.listTools()).tools;
    await client.close();
    const declared = model.requests[0]!.config.tools!;
    expect(declared.map((d) => d.name)).toEqual(listed.map((t) => t.name));
    for (const tool of listed) {
      const { $schema: _dialect, ...schema } = tool.inputSchema;
      expect(declared.find((d) => d.name === tool.name)).toEqual({
        name: tool.name,
        description: tool.description ?? '',
        parameters: schema,
      } satisfies FunctionDeclaration);
    }
    expect(declared[0]!.parameters).toEqual({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'The first number' },
        b: { type: 'number', description: 'The second number' },
      },
      required: ['a', 'b'],
    });

    // One server for the whole conversation.
    await turn('again');
    expect(pids(log)).toHaveLength(1);
    const [pid] = pids(log);
    await runner.close();
    expect(isAlive(pid!)).toBe(false);
  });

  it('toolFilter (names or a function) and prefix choose and name the tools', async () => {
    const log = logFile();
    const byName = fixtureToolset(log, { toolFilter: ['add', 'echo', 'no_such_tool'], prefix: 'calc' });
    const byFunction = fixtureToolset(log, { toolFilter: (tool) => tool.name.startsWith('e'), prefix: 'x' });
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'calc_add', args: { a: 1, b: 1 } },
          { name: 'x_echo', args: { text: 'hi' } },
        ],
      },
      'done',
    ]);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [byName, byFunction] }));
    const result = await turn('go');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['calc_add', 'calc_echo', 'x_echo']);
    expect(responses(result)).toEqual([{ result: '2', structuredContent: { sum: 2 } }, { result: 'hi' }]);
  });

  it("an error result (isError) goes back to the model as an error response with the server's text", async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'fail', args: { reason: 'no disk' } }] }, 'Sorry.']);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [fixtureToolset(logFile())] }));
    const result = await turn('go');
    expect(result.status).toBe('completed');
    expect(responses(result)).toEqual([{ error: 'cannot do that: no disk' }]);
    // Arguments the server rejects come back as an error too, and the run goes on.
    const second = await (
      await chat(
        new LlmAgent({
          name: 'B',
          model: new ScriptedModel([{ functionCalls: [{ name: 'add', args: { a: 'one' } }] }, 'ok']),
          tools: [fixtureToolset(logFile())],
        }),
      )
    ).turn('go');
    expect(second.status).toBe('completed');
    expect(String(responses(second)[0]!.error)).toMatch(/validation error/i);
  });

  it('a server that exits mid-call gives an error response, the run goes on, and the next use restarts it', async () => {
    const log = logFile();
    const toolset = fixtureToolset(log);
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'crash' }] },
      { functionCalls: [{ name: 'echo', args: { text: 'back' } }] },
      'recovered',
      { functionCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      'three',
    ]);
    const { runner, turn } = await chat(new LlmAgent({ name: 'A', model, tools: [toolset] }));
    const result = await turn('crash please');
    expect(result.status).toBe('completed');
    const [crashed, echoed] = responses(result);
    expect(crashed!.error).toMatch(
      /^MCP server `.*node …` closed the connection while tool 'crash' was running .* It is restarted on the next use\.$/s,
    );
    expect(echoed).toEqual({ result: 'back' }); // the call after the crash restarted the server
    expect(result.output).toBe('recovered');

    const next = await turn('add');
    expect(responses(next)).toEqual([{ result: '3', structuredContent: { sum: 3 } }]);
    const started = pids(log);
    expect(started).toHaveLength(2);
    expect(isAlive(started[0]!)).toBe(false);
    await runner.close();
    expect(isAlive(started[1]!)).toBe(false);
  });

  it('aborting the run mid-call cancels the run and the call on the server', async () => {
    const log = logFile();
    const model = new ScriptedModel([{ functionCalls: [{ name: 'sleep', args: { ms: 30_000 } }] }, 'never']);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [fixtureToolset(log)] }));
    const controller = new AbortController();
    const running = turn('sleep', controller.signal);
    await waitFor(() => logLines(log).includes('sleep started'), 'the call to start');
    const started = Date.now();
    controller.abort();
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(() => logLines(log).includes('sleep cancelled'), 'the server to see the cancellation');
  });

  it('many calls in one run leave no abort listeners behind (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const calls = Array.from({ length: 15 }, (_, i) => ({ name: 'echo', args: { text: String(i) } }));
      const model = new ScriptedModel([{ functionCalls: calls }, { functionCalls: calls }, 'done']);
      const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [fixtureToolset(logFile())] }));
      const result = await turn('echo a lot', new AbortController().signal);
      expect(responses(result)).toHaveLength(30);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.includes('MaxListenersExceeded'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refreshes its tools when the server announces a change (tools/list_changed)', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'grow' }] },
      'grown',
      { functionCalls: [{ name: 'extra' }] },
      'used it',
    ]);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [fixtureToolset(logFile())] }));
    await turn('grow');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).not.toContain('extra');
    const result = await turn('use the new tool');
    expect(model.requests[2]!.config.tools!.map((t) => t.name)).toContain('extra');
    expect(responses(result)).toEqual([{ result: 'extra ran' }]);
  });

  it('close() ends the server process (no orphan), and a later use starts a new one', async () => {
    const log = logFile();
    const toolset = fixtureToolset(log);
    await toolset.getTools();
    const pid = toolset.pid!;
    expect(pids(log)).toEqual([pid]);
    expect(isAlive(pid)).toBe(true);
    await toolset.close();
    expect(isAlive(pid)).toBe(false);
    expect(toolset.pid).toBeUndefined();
    await toolset.close(); // twice is fine
    expect((await toolset.getTools()).length).toBeGreaterThan(0);
    expect(pids(log)).toHaveLength(2);
  });

  it('a missing command or a server that exits at start fails the run with an error naming the command and the fix', async () => {
    const missing = new MCPToolset({ command: 'troupe-no-such-mcp-server', args: ['--stdio'] });
    const error = await missing.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPConnectionError);
    expect((error as Error).message).toBe(
      "Cannot start MCP server `troupe-no-such-mcp-server …`: the command 'troupe-no-such-mcp-server' was not found. Install it, or give 'command' as an absolute path or a program on PATH.",
    );

    const broken = new MCPToolset({
      command: process.execPath,
      args: ['-e', 'console.error("boom: missing API key"); process.exit(2)'],
    });
    const model = new ScriptedModel([]);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [broken] }));
    const result = await turn('go');
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(
      /^MCP server `.*` exited before completing the MCP handshake\. Check the command and its arguments: run it in a terminal .* never into this message\)\.$/s,
    );
    expect(model.callCount).toBe(0);
  });

  it('rejects invalid options in the constructor, naming the option and the fix', () => {
    expect(() => new MCPToolset(Object.create(null) as MCPConnection)).toThrow(/needs 'command' .* or 'url'/);
    expect(() => new MCPToolset({ command: 'node', url: 'http://x' })).toThrow(/both 'command' and 'url'/);
    expect(() => new MCPToolset({ command: 'node', args: 'server.js' } as never)).toThrow(
      /'args' must be a list of strings/,
    );
    expect(() => new MCPToolset({ url: 'ftp://example.com' })).toThrow(/must be an http\(s\) URL/);
    expect(() => new MCPToolset({ command: 'node' }, { prefix: 'has space' })).toThrow(
      /'prefix' must start with a letter/,
    );
    expect(() => new MCPToolset({ command: 'node' }, { toolFilter: 'add' as never })).toThrow(
      /'toolFilter' must be a list of tool names/,
    );
    expect(() => new MCPToolset({ command: 'node' }, { timeoutMs: 0 })).toThrow(/'timeoutMs' must be a whole number/);
    expect(() => new MCPToolset({ command: 'node' }, { onStderr: 'console' as never })).toThrow(
      /'onStderr' must be a function/,
    );
  });
});
