import { expect } from 'vitest';
import { FunctionTool, InMemorySessionService, LlmAgent, type BaseAgent } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { z } from 'zod';
import { createApp, type CreateAppOptions, type TroupeApp, type WireEvent, type WireSession } from '../src/index.js';

/** An app with one LlmAgent 'assistant' answering with the scripted replies. */
export function scriptedApp(replies: ScriptedReply[], options: Partial<CreateAppOptions> = {}) {
  const model = new ScriptedModel(replies);
  const agent = new LlmAgent({ name: 'assistant', model, instruction: 'Help.' });
  const sessionService = new InMemorySessionService();
  const app = createApp({ apps: { chat: agent }, sessionService, ...options });
  return { app, model, agent, sessionService };
}

/**
 * An app 'chat' whose agent 'assistant' has a `wait` tool that holds its invocation until
 * `release()`: `toolStarted` resolves once the tool runs, so a test can act while the session is busy.
 */
export function heldToolApp(replies: ScriptedReply[]): {
  app: TroupeApp;
  toolStarted: Promise<void>;
  release: () => void;
} {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => {};
  const toolStarted = new Promise<void>((resolve) => (started = resolve));
  const wait = new FunctionTool({
    name: 'wait',
    description: 'Waits.',
    parameters: z.object({}),
    execute: async () => {
      started();
      await held;
      return { ok: true };
    },
  });
  const model = new ScriptedModel(replies);
  const app = createApp({
    apps: { chat: new LlmAgent({ name: 'assistant', model, tools: [wait] }) },
    sessionService: new InMemorySessionService(),
  });
  return { app, toolStarted, release };
}

/** A `transfer_money` tool that asks for confirmation before it runs; each amount it sends goes into `sent`. */
export function transferTool(sent: number[]) {
  return new FunctionTool({
    name: 'transfer_money',
    description: 'Transfers money.',
    parameters: z.object({ amount: z.number() }),
    requireConfirmation: true,
    execute: ({ amount }) => {
      sent.push(amount);
      return { status: 'sent', amount };
    },
  });
}

/** An agent whose `transfer_money` tool asks for confirmation before it runs; `sent` records what it sent. */
export function bankAgent(replies: ScriptedReply[]): { agent: BaseAgent; model: ScriptedModel; sent: number[] } {
  const sent: number[] = [];
  const model = new ScriptedModel(replies);
  return { agent: new LlmAgent({ name: 'Banker', model, tools: [transferTool(sent)] }), model, sent };
}

/** An app whose agent pauses for confirmation before its `transfer_money` tool runs. */
export function bankApp(replies: ScriptedReply[], options: Partial<CreateAppOptions> = {}) {
  const { agent, model, sent } = bankAgent(replies);
  const sessionService = new InMemorySessionService();
  const app = createApp({ apps: { bank: agent }, sessionService, ...options });
  return { app, model, sent, sessionService };
}

/** A JSON request to the app. */
export function call(
  app: TroupeApp,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return Promise.resolve(
    app.request(path, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      ...(signal ? { signal } : {}),
    }),
  );
}

/** Creates a session over HTTP and returns it. */
export async function createSession(
  app: TroupeApp,
  appName: string,
  userId: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<WireSession> {
  const res = await call(app, 'POST', `/apps/${appName}/users/${userId}/sessions`, body, headers);
  expect(res.status).toBe(200);
  return (await res.json()) as WireSession;
}

/** A user message as ADK Content. */
export function message(text: string) {
  return { role: 'user', parts: [{ text }] };
}

/** The body of a `/run` or `/run_sse` request: `text` from the session's user, in that session. */
export function runBody(session: WireSession, text: string) {
  return { appName: session.appName, userId: session.userId, sessionId: session.id, newMessage: message(text) };
}

/**
 * The body ADK's clients send to answer a confirmation request of bank/alice's session: a user
 * message holding the function response to `request` (the adk_request_confirmation call).
 */
export function adkAnswer(
  sessionId: string,
  request: { id: string; name: string },
  response: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return {
    appName: 'bank',
    userId: 'alice',
    sessionId,
    newMessage: { role: 'user', parts: [{ functionResponse: { id: request.id, name: request.name, response } }] },
    streaming: false,
    stateDelta: null,
    ...extra,
  };
}

/** Expects a JSON error response with this status and code; returns the message. */
export async function expectError(res: Response, status: number, code: string): Promise<string> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  expect(typeof body.error.message).toBe('string');
  return body.error.message;
}

/**
 * Reads a server-sent-events body chunk by chunk. In process each chunk is one write of the
 * server, so `chunks` shows how the frames were written; `events` are the parsed frames.
 */
export async function readSse(res: Response): Promise<{ chunks: string[]; events: WireEvent[] }> {
  const chunks = await readSseChunks(res);
  return { chunks, events: parseFrames(chunks.join('')) };
}

/** The chunks of a 200 server-sent-events body, as the server wrote them. */
export async function readSseChunks(res: Response): Promise<string[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(decoder.decode(value));
  }
  return chunks;
}

/** Splits an SSE text into frames, checking each is exactly one `data:` line of JSON. */
export function parseFrames(text: string): WireEvent[] {
  expect(text.endsWith('\n\n') || text === '').toBe(true);
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame).toMatch(/^data: [^\n]+$/);
      return JSON.parse(frame.slice('data: '.length)) as WireEvent;
    });
}

/** Polls until `check` passes (for effects that finish after a response, such as a cancelled run storing its end). */
export async function eventually(check: () => Promise<void> | void, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** An agent whose `fetch_pages` tool reports its progress with ctx.emit before returning. */
export function progressAgent(): { agent: LlmAgent; model: ScriptedModel } {
  const fetchPages = new FunctionTool({
    name: 'fetch_pages',
    description: 'Fetches pages.',
    parameters: z.object({ count: z.number() }),
    execute: async ({ count }, ctx) => {
      for (let page = 1; page <= count; page++) await ctx.emit('fetch.progress', { page, of: count });
      return { fetched: count };
    },
  });
  const model = new ScriptedModel([{ functionCalls: [{ name: 'fetch_pages', args: { count: 2 } }] }, 'Fetched 2.']);
  return { agent: new LlmAgent({ name: 'fetcher', model, instruction: 'Fetch.', tools: [fetchPages] }), model };
}
