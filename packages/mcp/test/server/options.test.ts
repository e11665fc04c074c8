import { ConfigurationError, FunctionAgent, InMemoryRunner, InMemorySessionService } from '@troupe/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpServer, type McpServerOptions } from '../../src/index.js';
import { chatAgent, slowAgent } from './apps.js';
import { waitFor } from './helpers.js';

// mcpServer's options, checked when it is made, and its handle's close().

const chat = chatAgent();
const withSessionField = new FunctionAgent({
  name: 'booker',
  inputSchema: z.object({ sessionId: z.string() }),
  run: () => 'booked',
});

describe('mcpServer options', () => {
  it.each<[string, unknown, string]>([
    [
      'nothing to serve',
      {},
      'mcpServer needs apps ({ name: rootAgent }) or an agent to serve; it got neither. Example: mcpServer({ apps: { travel: rootAgent } }).',
    ],
    [
      'apps and an agent',
      { apps: { chat }, agent: chat },
      'mcpServer got apps and agent; give apps (several apps) or agent/runner (one app), not both.',
    ],
    [
      'an app that is not an agent',
      { apps: { chat: 'chat' } },
      "mcpServer's apps['chat'] must be an agent (a BaseAgent such as LlmAgent); got string.",
    ],
    [
      "an app named like the server's resume tool",
      { apps: { resume: chat } },
      "An app named 'resume' cannot be served over MCP: 'resume' is the server's tool that answers paused runs. Rename the app.",
    ],
    [
      'an inputSchema with a sessionId field',
      { apps: { booker: withSessionField } },
      "App 'booker' cannot be served over MCP: the inputSchema of its root agent 'booker' has a field 'sessionId', which MCP tools of Troupe apps reserve for the session to continue. Rename that field.",
    ],
    [
      'a runner of another agent than the one given',
      { agent: chat, runner: new InMemoryRunner({ agent: chatAgent() }) },
      "mcpServer's runner runs a different agent ('chat') than the agent it was given ('chat'). Pass the runner of that agent, or leave one of them out.",
    ],
    [
      'a runner and another session store',
      { runner: new InMemoryRunner({ agent: chat }), sessionService: new InMemorySessionService() },
      "mcpServer got both a runner and a sessionService that is not the runner's. Give one of them: the runner's store is where its sessions live.",
    ],
    [
      'a bodyLimit that is not a whole number',
      { agent: chat, bodyLimit: 0.5 },
      "mcpServer's bodyLimit is 0.5; it must be a whole number of at least 1, e.g. 1048576, or left out.",
    ],
    [
      'an empty defaultUserId',
      { agent: chat, defaultUserId: '' },
      `mcpServer's defaultUserId is ""; it must be a non-empty string or left out.`,
    ],
    [
      'auth without tokens',
      { agent: chat, auth: { tokens: {} } },
      "mcpServer's auth.tokens must map at least one token to a user id (or '*' for admin), e.g. { tokens: { 'secret': 'alice' } }; got {}.",
    ],
  ])('%s is a ConfigurationError naming it and the fix', (_what, options, message) => {
    expect(() => mcpServer(options as McpServerOptions)).toThrow(new ConfigurationError(message));
  });
});

describe('close()', () => {
  it('cancels the runs in flight, which store their cancellation, and ends the connections', async () => {
    const sessionService = new InMemorySessionService();
    const slow = slowAgent();
    const mcp = mcpServer({ agent: slow.agent, sessionService });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    const call = client.callTool({ name: 'slow', arguments: { message: 'wait' } }).then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    await slow.started;
    await mcp.close();
    await slow.cancelled;
    expect(await call).toBe('McpError: MCP error -32000: Connection closed');
    const [session] = (await sessionService.listSessions({ appName: 'slow', userId: 'mcp' })).sessions;
    const key = { appName: 'slow', userId: 'mcp', sessionId: session!.id };
    await waitFor(
      async () => (await sessionService.getSession(key))!.events.at(-1)?.errorCode === 'CANCELLED',
      'the run to store its cancellation',
    );
  });

  it('HTTP requests after close are refused with 503', async () => {
    const mcp = mcpServer({ agent: chat });
    await mcp.close();
    const res = await mcp.handleRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}' }));
    expect(res.status).toBe(503);
  });
});
