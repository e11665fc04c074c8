import { InMemorySessionService } from '@troupe/core';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { bankAgent, chatAgent, plannerAgent, slowAgent } from './apps.js';
import { connectHttp, sessionIdOf, startApi, textOf } from './helpers.js';

// Calls the server will not run as asked: each answered with what is wrong and the fix, nothing stored.

async function setUp() {
  const sessionService = new InMemorySessionService();
  const { mcpUrl } = await startApi({ apps: { chat: chatAgent(), planner: plannerAgent() }, sessionService });
  const client = await connectHttp(mcpUrl);
  const stored = async () =>
    (
      await Promise.all(
        ['chat', 'planner'].map(async (appName) =>
          (await sessionService.listSessions({ appName, userId: 'mcp' })).sessions.map((s) => s.id),
        ),
      )
    ).flat();
  return { client, sessionService, stored };
}

describe('bad tool calls', () => {
  it('an unknown tool is a JSON-RPC invalid-params error naming it and the tools there are', async () => {
    const { client, stored } = await setUp();
    const error = await client.callTool({ name: 'chta', arguments: { message: 'hi' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain(
      "Unknown tool 'chta'. This server's tools are 'chat', 'planner', 'resume'; tools/list describes them.",
    );
    expect(await stored()).toEqual([]);
  });

  it("params that do not fit the method are JSON-RPC invalid params (-32602) naming the field, not the SDK's internal error", async () => {
    const { mcpUrl } = await startApi({ apps: { chat: chatAgent() } });
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const opened = await fetch(mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = { ...headers, 'Mcp-Session-Id': opened.headers.get('mcp-session-id')! };
    await opened.body?.cancel();
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chat', arguments: [] } }),
    });
    const data = (await res.text()).split('\n').find((line) => line.startsWith('data: '))!;
    expect(JSON.parse(data.slice(6))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message:
          'Invalid params of \'tools/call\': \'params.arguments\': Invalid input: expected record, received array. Send them as the MCP specification of \'tools/call\' describes, e.g. { "name": "<tool>", "arguments": { "message": "..." } }.',
      },
    });
  });

  it.each([
    [
      'no message',
      {},
      "Tool 'chat' needs 'message', the user's message as a non-empty string; got none. Send { \"message\": \"<your message>\" }.",
    ],
    [
      'a message that is not a string',
      { message: 42 },
      "Tool 'chat' needs 'message', the user's message as a non-empty string; got 42. Send { \"message\": \"<your message>\" }.",
    ],
    [
      'an argument it does not take',
      { message: 'hi', userId: 'bob' },
      "Tool 'chat' takes 'message' and optionally 'sessionId'; it got 'userId' too. Send { \"message\": \"<your message>\" }.",
    ],
    [
      'a sessionId that is not a string',
      { message: 'hi', sessionId: 7 },
      "Tool 'chat' got sessionId 7; it must be the id of a session (1 to 256 characters) that an earlier result returned in _meta.sessionId, or be left out to start a new session.",
    ],
    [
      'an unknown sessionId',
      { message: 'hi', sessionId: 'nope' },
      "There is no session 'nope' of app 'chat' for this user: sessions belong to the user who started them. Pass the _meta.sessionId an earlier result of 'chat' returned, or leave sessionId out to start a new session.",
    ],
  ])('%s: a tool error naming it, nothing stored', async (_what, args, message) => {
    const { client, stored } = await setUp();
    const result = await client.callTool({ name: 'chat', arguments: args });
    expect(result).toEqual({ content: [{ type: 'text', text: message }], isError: true });
    expect(await stored()).toEqual([]);
  });

  it("an input that does not match the root agent's inputSchema names the field; the new session is not kept", async () => {
    const { client, stored } = await setUp();
    const result = await client.callTool({ name: 'planner', arguments: { city: 'Porto', days: 0 } });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toBe(
      "The input for agent 'planner' does not match its inputSchema: days: Too small: expected number to be >=1. Pass an input with these fields.",
    );
    expect(await stored()).toEqual([]);
  });

  it.each([
    [
      'no interruptId',
      { sessionId: 's1', answer: true },
      "Tool 'resume' needs interruptId, the id of the question answered (structuredContent.interrupt.interruptId of the earlier result); got none.",
    ],
    [
      'no answer',
      { sessionId: 's1', interruptId: 'i1' },
      "Tool 'resume' needs answer: true or false for an approval, the value asked for for a request for input.",
    ],
    [
      'an unknown session',
      { sessionId: 's1', interruptId: 'i1', answer: true },
      "There is no session 's1' of this user: sessions belong to the user who started them. Pass the _meta.sessionId of the result that asked the question.",
    ],
  ])('resume with %s: a tool error naming it', async (_what, args, message) => {
    const { client, stored } = await setUp();
    const result = await client.callTool({ name: 'resume', arguments: args });
    expect(result).toEqual({ content: [{ type: 'text', text: message }], isError: true });
    expect(await stored()).toEqual([]);
  });

  it('a message to a session that waits for an answer is refused, naming the resume tool', async () => {
    const sessionService = new InMemorySessionService();
    const { mcpUrl } = await startApi({ apps: { bank: bankAgent().agent }, sessionService });
    const client = await connectHttp(mcpUrl);
    const paused = await client.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    const sessionId = sessionIdOf(paused as never);
    const events = async () =>
      (await sessionService.getSession({ appName: 'bank', userId: 'mcp', sessionId }))!.events.length;
    const before = await events();
    const result = await client.callTool({ name: 'bank', arguments: { message: 'and more', sessionId } });
    expect(result.isError).toBe(true);
    expect(textOf(result as never)).toMatch(
      /^Session '.+' has 1 unanswered interrupt\(s\) \(.+\)\. The session waits for a person's answer: answer it with the 'resume' tool \(\{ sessionId, interruptId, answer \}\), or leave sessionId out to start a new session\.$/,
    );
    expect(await events()).toBe(before);
  });

  it('a second call on a session whose run is in progress is refused while it runs', async () => {
    const sessionService = new InMemorySessionService();
    const slow = slowAgent();
    const { mcpUrl } = await startApi({ apps: { slow: slow.agent }, sessionService });
    const client = await connectHttp(mcpUrl);
    const first = new AbortController();
    const running = client
      .callTool({ name: 'slow', arguments: { message: 'wait' } }, undefined, { signal: first.signal })
      .catch((error: unknown) => error);
    await slow.started;
    // The running call has not answered yet: its session is the app's only one.
    const [session] = (await sessionService.listSessions({ appName: 'slow', userId: 'mcp' })).sessions;
    const second = await client.callTool({ name: 'slow', arguments: { message: 'now', sessionId: session!.id } });
    expect(second.isError).toBe(true);
    expect(textOf(second as never)).toContain(
      'Another call is running in this session: wait for it to end (or cancel it), or leave sessionId out to start a new session.',
    );
    first.abort();
    await running;
  });
});
