import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { type CreateAppOptions, createApp, serve } from '@troupe/server';
import { onTestFinished } from 'vitest';

/**
 * `createApp({ ...options, mcp: true })` served on 127.0.0.1 (a free port) for the current test;
 * closed when it finishes. Resolves with the MCP endpoint's URL.
 */
export async function startApi(options: CreateAppOptions): Promise<{ mcpUrl: URL; baseUrl: string }> {
  const handle = await serve(createApp({ ...options, mcp: true }), { port: 0, gracePeriodMs: 2000 });
  onTestFinished(() => handle.close({ gracePeriodMs: 2000 }));
  return { mcpUrl: new URL(`${handle.url}/mcp`), baseUrl: handle.url };
}

/** How a test client answers the server's elicitations (given: the client declares the capability). */
export type ElicitationAnswer = (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;

/** An official SDK client connected over Streamable HTTP for the current test (closed when it finishes). */
export async function connectHttp(
  url: URL,
  options: { token?: string; elicit?: ElicitationAnswer } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'troupe-test', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params));
  }
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : {},
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/** A tool call with progress: the result, and every progress notification that arrived before it, in order. */
export async function callWithProgress(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<{ result: CallToolResult; progress: Progress[] }> {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: (p) => progress.push(p),
    ...(signal ? { signal } : {}),
  })) as CallToolResult;
  return { result, progress };
}

/** A call's text content, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The session id a call's result names in `_meta.sessionId`. */
export function sessionIdOf(result: CallToolResult): string {
  const id = result._meta?.sessionId;
  if (typeof id !== 'string') throw new Error(`The result has no _meta.sessionId: ${JSON.stringify(result)}`);
  return id;
}

/** Waits until `check` holds, polling every 20 ms; fails naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
