import { contentText, InMemorySessionService } from '@troupe/core';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { bankAgent, chatAgent, plannerAgent } from './apps.js';
import { callWithProgress, connectHttp, sessionIdOf, startApi, textOf } from './helpers.js';

// createApp({ mcp: true }) on 127.0.0.1, driven by the official SDK client over Streamable HTTP.

describe('MCP over Streamable HTTP (createApp({ mcp: true }))', () => {
  it('lists one tool per app (name, root agent description, input schema) and the resume tool', async () => {
    const { mcpUrl } = await startApi({ apps: { chat: chatAgent(), planner: plannerAgent() } });
    const client = await connectHttp(mcpUrl);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['chat', 'planner', 'resume']);
    const [chat, planner] = tools;
    expect(chat).toMatchObject({
      description: 'Chats, and counts the turns of its session.',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string' }, sessionId: { type: 'string' } },
        required: ['message'],
      },
    });
    expect(planner!.description).toBe('Plans a trip.');
    expect(planner!.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, sessionId: { type: 'string' } },
      required: ['city', 'days'],
    });
  });

  it('a call runs one turn and returns the final text with _meta.sessionId; a call with that id continues the session', async () => {
    const sessionService = new InMemorySessionService();
    const { mcpUrl } = await startApi({ apps: { chat: chatAgent() }, sessionService });
    const client = await connectHttp(mcpUrl);

    const first = await client.callTool({ name: 'chat', arguments: { message: 'hello' } });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: 'text', text: 'Turn 1: hello' }]);
    const sessionId = sessionIdOf(first as never);

    const second = await client.callTool({ name: 'chat', arguments: { message: 'again', sessionId } });
    expect(second.content).toEqual([{ type: 'text', text: 'Turn 2: again' }]);
    expect(sessionIdOf(second as never)).toBe(sessionId);

    // Both turns are in the one session, stored under the MCP user.
    const session = await sessionService.getSession({ appName: 'chat', userId: 'mcp', sessionId });
    expect(session!.events.map((e) => `${e.author}: ${contentText(e.content)}`)).toEqual([
      'user: hello',
      'chat: Turn 1: hello',
      'user: again',
      'chat: Turn 2: again',
    ]);
  });

  it('an agent with inputSchema takes its fields; one with outputSchema answers structuredContent too', async () => {
    const { mcpUrl } = await startApi({ apps: { planner: plannerAgent() } });
    const client = await connectHttp(mcpUrl);
    const result = await client.callTool({ name: 'planner', arguments: { city: 'Porto', days: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ city: 'Porto', stops: ['Porto day 1', 'Porto day 2'] });
    expect(JSON.parse(textOf(result as never))).toEqual(result.structuredContent);
  });

  it('a client that ends its MCP session (DELETE) is answered 404 on it afterwards', async () => {
    const { mcpUrl } = await startApi({ apps: { chat: chatAgent() } });
    const client = await connectHttp(mcpUrl);
    const transport = client.transport as StreamableHTTPClientTransport;
    const mcpSession = transport.sessionId!;
    await transport.terminateSession();
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': mcpSession,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /^Session not found: there is no MCP session '.+' of this user .*Start a new one with an 'initialize' request\.$/,
    );
  });

  it('sends each event as notifications/progress, in order and all before the result', async () => {
    const { agent, sent } = bankAgent();
    const { mcpUrl } = await startApi({ apps: { bank: agent } });
    const client = await connectHttp(mcpUrl, { elicit: () => ({ action: 'accept', content: { approve: true } }) });
    const { result, progress } = await callWithProgress(client, 'bank', { message: 'send 120' });
    expect(textOf(result)).toBe('Transfer done: {"status":"sent","amount":120}');
    expect(sent).toEqual([120]);
    expect(progress.map((p) => p.message)).toEqual([
      'banker: Sending it.',
      'banker: called transfer',
      'banker: asks approval for transfer',
      'banker: ledger.updated',
      'banker: transfer returned',
      'banker: Transfer done: {"status":"sent","amount":120}',
    ]);
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
