import { InMemorySessionService } from '@troupe/core';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { bankAgent, chatAgent } from './apps.js';
import { connectHttp, sessionIdOf, startApi, textOf } from './helpers.js';

// Per user, as the HTTP API: the bearer token's user; sessions are that user's alone.

const tokens = { 'alice-secret': 'alice', 'bob-secret': 'bob', 'ops-secret': '*' };

async function setUp() {
  const sessionService = new InMemorySessionService();
  const bank = bankAgent();
  const { mcpUrl } = await startApi({
    apps: { chat: chatAgent(), bank: bank.agent },
    sessionService,
    auth: { tokens },
  });
  return { mcpUrl, sessionService, sent: bank.sent };
}

describe('MCP auth', () => {
  it('refuses a request without a token, or with one it does not know (401)', async () => {
    const { mcpUrl } = await setUp();
    for (const headers of [{}, { Authorization: 'Bearer nope' }] as Record<string, string>[]) {
      const res = await fetch(mcpUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initialize()),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /requires a token|was not accepted/,
      );
    }
    await expect(connectHttp(mcpUrl)).rejects.toThrow(/401|requires a token/);
  });

  it("runs as the token's user; another user cannot continue or answer that user's session", async () => {
    const { mcpUrl, sessionService, sent } = await setUp();
    const alice = await connectHttp(mcpUrl, { token: 'alice-secret' });
    const bob = await connectHttp(mcpUrl, { token: 'bob-secret' });

    const first = await alice.callTool({ name: 'chat', arguments: { message: 'hello' } });
    const sessionId = sessionIdOf(first as never);
    expect(await sessionService.getSession({ appName: 'chat', userId: 'alice', sessionId })).toBeDefined();

    const stolen = await bob.callTool({ name: 'chat', arguments: { message: 'mine now', sessionId } });
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen as never)).toBe(
      `There is no session '${sessionId}' of app 'chat' for this user: sessions belong to the user who started them. Pass the _meta.sessionId an earlier result of 'chat' returned, or leave sessionId out to start a new session.`,
    );
    expect((await sessionService.listSessions({ appName: 'chat', userId: 'bob' })).sessions).toEqual([]);
    expect((await sessionService.getSession({ appName: 'chat', userId: 'alice', sessionId }))!.events).toHaveLength(2);

    // Alice's pending approval cannot be given by Bob.
    const paused = await alice.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    const interruptId = (paused.structuredContent as { interrupt: { interruptId: string } }).interrupt.interruptId;
    const approved = await bob.callTool({
      name: 'resume',
      arguments: { sessionId: sessionIdOf(paused as never), interruptId, answer: true },
    });
    expect(approved.isError).toBe(true);
    expect(textOf(approved as never)).toMatch(/^There is no session '.+' of this user/);
    expect(sent).toEqual([]);
  });

  it("an MCP session (Mcp-Session-Id) is its user's: another user's token on it is answered 404", async () => {
    const { mcpUrl } = await setUp();
    const opened = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: 'Bearer alice-secret',
      },
      body: JSON.stringify(initialize()),
    });
    expect(opened.status).toBe(200);
    const mcpSession = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: 'Bearer bob-secret',
        'Mcp-Session-Id': mcpSession,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001);
  });

  it("an admin token acts as the MCP user ('mcp')", async () => {
    const { mcpUrl, sessionService } = await setUp();
    const ops = await connectHttp(mcpUrl, { token: 'ops-secret' });
    const result = await ops.callTool({ name: 'chat', arguments: { message: 'hi' } });
    const sessionId = sessionIdOf(result as never);
    expect(await sessionService.getSession({ appName: 'chat', userId: 'mcp', sessionId })).toBeDefined();
  });
});

function initialize() {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}
