import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { callWithProgress, sessionIdOf, textOf, waitFor } from './helpers.js';

// A real `troupe mcp <dir>` process (the built CLI, as MCP hosts start it), driven over stdio by
// the official SDK client. Needs the build (npx tsc -b tsconfig.build.json).

const BIN = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
const APPS = fileURLToPath(new URL('./fixtures/apps/', import.meta.url));

/** A client of a new `troupe mcp` process; every error the client saw (a stray stdout line, a late notification) is kept. */
async function startStdio(options: { args?: string[]; elicit?: boolean } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', APPS, '--memory', ...(options.args ?? [])],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(
    { name: 'troupe-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  if (options.elicit)
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(transport);
  const pid = transport.pid!;
  onTestFinished(async () => {
    await client.close();
    // The SDK closes stdin, then signals; a process still there after that is ended by its pid.
    await waitFor(() => !alive(pid), `troupe mcp (pid ${pid}) to exit`).catch(() => process.kill(pid, 'SIGKILL'));
  });
  return { client, errors, stderr: () => stderr, pid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('troupe mcp (stdio)', () => {
  it('serves each app of the directory as a tool; sessions continue through _meta.sessionId; logs go to stderr', async () => {
    const { client, errors, stderr } = await startStdio();
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['bank', 'Moves money, with approval.'],
      ['chat', 'Chats, and counts the turns of its session.'],
      ['slow', 'Takes its time.'],
      ['resume', expect.stringMatching(/^Answers a question a paused run asked/)],
    ]);
    const first = (await client.callTool({ name: 'chat', arguments: { message: 'hello' } })) as CallToolResult;
    expect(first.content).toEqual([{ type: 'text', text: 'Turn 1: hello' }]);
    const sessionId = sessionIdOf(first);
    const second = (await client.callTool({
      name: 'chat',
      arguments: { message: 'again', sessionId },
    })) as CallToolResult;
    expect(textOf(second)).toBe('Turn 2: again');
    // The agent's console.log went to stderr: stdout carried JSON-RPC only, so the client saw no broken line.
    expect(stderr()).toContain('chat model called (this line must go to stderr)');
    expect(stderr()).toMatch(/troupe mcp: serving bank, chat, slow from .* over stdio/);
    expect(errors).toEqual([]);
  });

  it('with elicitation: progress notifications arrive in order before the result, and the approval is asked in the call', async () => {
    const { client, errors } = await startStdio({ elicit: true });
    const { result, progress } = await callWithProgress(client, 'bank', { message: 'send 120' });
    expect(textOf(result)).toBe('Transfer done: {"status":"sent","amount":120}');
    expect(progress.map((p) => p.message)).toEqual([
      'banker: Sending it.',
      'banker: called transfer',
      'banker: asks approval for transfer',
      'banker: ledger.updated',
      'banker: transfer returned',
      'banker: Transfer done: {"status":"sent","amount":120}',
    ]);
    // A notification that came with or after the result would have been reported as an unknown token.
    expect(errors).toEqual([]);
  });

  it('without elicitation: the pending approval is returned, and the resume tool answers it', async () => {
    const { client } = await startStdio();
    const paused = (await client.callTool({ name: 'bank', arguments: { message: 'send 120' } })) as CallToolResult;
    expect(paused.isError).toBe(false);
    const interrupt = (paused.structuredContent as { interrupt: { interruptId: string; kind: string } }).interrupt;
    expect(interrupt.kind).toBe('confirmation');
    const done = (await client.callTool({
      name: 'resume',
      arguments: { sessionId: sessionIdOf(paused), interruptId: interrupt.interruptId, answer: false },
    })) as CallToolResult;
    expect(textOf(done)).toMatch(/^Transfer done: .*reject/i);
  });

  it("a cancelled call cancels its run; the session's next call runs", async () => {
    const { client } = await startStdio({ args: ['--app', 'slow'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['slow', 'resume']);
    const ready = (await client.callTool({ name: 'slow', arguments: { message: 'ready?' } })) as CallToolResult;
    const sessionId = sessionIdOf(ready);
    const controller = new AbortController();
    const cancelled = await client
      .callTool({ name: 'slow', arguments: { message: 'wait', sessionId } }, undefined, {
        signal: controller.signal,
        // Cancelled once the tool says it waits.
        onprogress: (p) => {
          if (p.message === 'slow: waiting') controller.abort(new Error('stop'));
        },
      })
      .then(
        () => 'answered',
        (error: unknown) => String(error),
      );
    expect(cancelled).toBe('McpError: MCP error -32001: Error: stop');
    // The run may take a moment to store its cancellation: until then the session is busy.
    let next: CallToolResult | undefined;
    await waitFor(async () => {
      next = (await client.callTool({ name: 'slow', arguments: { message: 'and now?', sessionId } })) as CallToolResult;
      return !next.isError;
    }, 'the session to take a call after the cancel');
    expect(textOf(next!)).toBe('Answered after the cancel.');
  });
});

describe('troupe mcp stdout', () => {
  it('carries only JSON-RPC messages, whatever the agents print', async () => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'mcp', APPS, '--memory', '--app', 'chat'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      if (alive(child.pid!)) process.kill(child.pid!, 'SIGKILL');
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chat', arguments: { message: 'hi' } } });
    await waitFor(() => out.includes('"id":2'), 'the call to be answered');
    child.stdin!.end();
    expect(
      await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]),
    ).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id?: number }).id)).toEqual([1, 2]);
  });
});
