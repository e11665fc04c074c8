import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAgent, getFunctionResponses, type RunResult } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { MCPConnectionError, MCPToolset } from '@troupe/mcp';
import { chat, waitFor } from './helpers.js';
import { startHttpServer } from './http-server.js';

const responses = (result: RunResult) => result.events.flatMap(getFunctionResponses).map((r) => r.response);

describe('MCPToolset over Streamable HTTP (a real server on 127.0.0.1)', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer({ token: 'secret' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('calls tools with the given headers, turns mixed content into plain data, and close() ends the session', async () => {
    const toolset = new MCPToolset({ url: server.url, headers: { Authorization: 'Bearer secret' } }, { prefix: 'web' });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'web_add', args: { a: 40, b: 2 } }, { name: 'web_picture' }] },
      'done',
    ]);
    const { runner, turn } = await chat(new LlmAgent({ name: 'A', model, tools: [toolset] }));
    const result = await turn('go');
    expect(result.status).toBe('completed');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['web_add', 'web_picture', 'web_wait']);
    expect(model.requests[0]!.config.tools![0]!.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(responses(result)).toEqual([
      { result: '42' },
      {
        content: [
          { type: 'text', text: 'A red dot.' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'resource', uri: 'file:///dot.txt', mimeType: 'text/plain', text: 'dot' },
          { type: 'resource_link', uri: 'file:///dot.png', name: 'dot.png' },
        ],
      },
    ]);
    expect(server.log.authorizations.every((header) => header === 'Bearer secret')).toBe(true);
    const [session] = server.log.opened.slice(-1);
    await runner.close();
    expect(server.log.ended).toContain(session);
  });

  it('aborting the run mid-call cancels the run and the request on the server', async () => {
    const toolset = new MCPToolset({ url: server.url, headers: { Authorization: 'Bearer secret' } });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'wait' }] }, 'never']);
    const { runner, turn } = await chat(new LlmAgent({ name: 'A', model, tools: [toolset] }));
    const controller = new AbortController();
    const running = turn('wait', controller.signal);
    await waitFor(() => server.log.waiting === 1, 'the call to start');
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await waitFor(() => server.log.cancelled === 1, 'the server to see the cancellation');
    await runner.close();
  });

  it('a refused connection, a missing token or a wrong path fails with an error naming the URL and the fix', async () => {
    const unauthorized = await new MCPToolset({ url: server.url }).getTools().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(MCPConnectionError);
    expect((unauthorized as Error).message).toBe(
      `MCP server at ${server.url} refused the connection (HTTP 401). Give the credentials it expects in 'headers', e.g. { Authorization: 'Bearer <token>' }.`,
    );

    const wrongPath = server.url.replace('/mcp', '/api');
    const notFound = await new MCPToolset({ url: wrongPath, headers: { Authorization: 'Bearer secret' } })
      .getTools()
      .catch((e: unknown) => e);
    expect((notFound as Error).message).toBe(
      `MCP server at ${wrongPath} answered HTTP 404: this URL is not a Streamable HTTP MCP endpoint. Fix 'url' (servers often serve it at /mcp).`,
    );

    // A port nobody listens on: take a free one and let it go.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/mcp`;
    const model = new ScriptedModel([]);
    const { turn } = await chat(new LlmAgent({ name: 'A', model, tools: [new MCPToolset({ url })] }));
    const result = await turn('go');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(MCPConnectionError);
    expect(result.error!.message).toBe(
      `Cannot reach MCP server at ${url}: connection refused. Start the server, or fix 'url' (host and port).`,
    );
  });
});
