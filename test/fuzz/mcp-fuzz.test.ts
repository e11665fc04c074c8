import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { FunctionAgent, InMemorySessionService } from '@troupe/core';
import { createApp } from '@troupe/server';
import { z } from 'zod';
import { jsonishValue } from './helpers.js';

// Property-based: generated bodies and tool arguments thrown at the MCP endpoint of
// createApp({ mcp: true }). For client input it answers a 4xx, a JSON-RPC error that is the
// client's (never an internal -32603), or a tool error; never an HTTP 5xx; and a refused call
// stores nothing.

const sessionService = new InMemorySessionService();
const echo = new FunctionAgent({ name: 'echo', run: (input) => String(input.request).toUpperCase() });
const planner = new FunctionAgent({
  name: 'planner',
  inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(5) }),
  run: ({ city, days }) => ({ city, days }),
});
const api = createApp({ apps: { echo, planner }, sessionService, mcp: true });
const APPS = ['echo', 'planner'];

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let session = '';

async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await api.request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body });
  return { status: res.status, text: await res.text() };
}

async function sessionCount(): Promise<number> {
  const counts = await Promise.all(
    APPS.map(async (appName) => (await sessionService.listSessions({ appName, userId: 'mcp' })).sessions.length),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** The JSON-RPC messages of an answer: one JSON body, or the data lines of an SSE stream. */
function messagesOf(
  text: string,
): { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }[] {
  if (text === '') return [];
  if (!text.startsWith('event:') && !text.startsWith('data:')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

beforeAll(async () => {
  const res = await api.request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  });
  session = res.headers.get('mcp-session-id')!;
  await res.text();
  await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': session });
});

const value = jsonishValue();

const method = fc.oneof(
  fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'resources/list', 'prompts/get', 'nope'),
  fc.string({ maxLength: 20 }),
  value,
);

/** A JSON-RPC envelope gone wrong: odd versions, ids, methods and params. */
const envelope = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), value),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), value),
    method,
    params: value,
  },
  { requiredKeys: [] },
);

/** Nesting and counts past the JSON limits, inside an otherwise valid tool call. */
const overLimits = fc.oneof(
  fc
    .integer({ min: 65, max: 3000 })
    .map(
      (depth) =>
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi","x":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
    ),
  fc.integer({ min: 10_001, max: 20_000 }).map((n) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'hi', x: Array.from({ length: n }, () => 0) } },
    }),
  ),
);

const malformed = fc.oneof(
  { arbitrary: envelope.map((e) => JSON.stringify(e)), weight: 4 },
  { arbitrary: fc.array(envelope, { minLength: 1, maxLength: 3 }).map((b) => JSON.stringify(b)), weight: 1 },
  { arbitrary: value.map((v) => JSON.stringify(v) ?? 'null'), weight: 1 },
  { arbitrary: overLimits, weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"x":1}}}}',
    ),
    weight: 1,
  },
);

/** Header sets a client gets wrong: no session, an unknown one, a bad Accept or Content-Type. */
const headers = fc.oneof(
  { arbitrary: fc.constant('session'), weight: 4 },
  {
    arbitrary: fc.constantFrom<Record<string, string>>(
      {},
      { 'mcp-session-id': 'not-a-session' },
      { accept: 'application/json' },
      { 'content-type': 'text/plain' },
      { 'mcp-protocol-version': '1999-01-01' },
    ),
    weight: 1,
  },
);

/** A tool call's arguments as a model gets them wrong (and sometimes right). */
const sessionId = fc.oneof(fc.constantFrom('nope', '', 'x'.repeat(300)), fc.string({ maxLength: 12 }), value);
const toolCall = fc.oneof(
  fc.record({
    name: fc.constant('echo'),
    arguments: fc.oneof(
      fc.record({ message: fc.oneof(fc.string({ maxLength: 20 }), value), sessionId }, { requiredKeys: [] }),
      value,
    ),
  }),
  fc.record({
    name: fc.constant('planner'),
    arguments: fc.oneof(
      fc.record(
        {
          city: fc.oneof(fc.string({ maxLength: 10 }), value),
          days: fc.oneof(fc.integer({ min: -2, max: 8 }), value),
          sessionId,
        },
        { requiredKeys: [] },
      ),
      value,
    ),
  }),
  fc.record({
    name: fc.constant('resume'),
    arguments: fc.oneof(
      fc.record(
        { sessionId, interruptId: fc.oneof(fc.string({ maxLength: 10 }), value), answer: value },
        { requiredKeys: [] },
      ),
      value,
    ),
  }),
  fc.record({ name: fc.oneof(fc.string({ maxLength: 10 }), value), arguments: value }),
);

describe('fuzzing the MCP endpoint', () => {
  it('malformed bodies and headers: a 4xx or a client JSON-RPC error, never a 5xx; nothing stored', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(malformed, headers, async (body, which) => {
        const before = await sessionCount();
        const { status, text } = await post(body, which === 'session' ? { 'mcp-session-id': session } : which);
        statuses.add(status);
        expect(status, body.slice(0, 200)).toBeLessThan(500);
        for (const message of messagesOf(text)) {
          if (message.error)
            expect(message.error.code, `${message.error.message} for ${body.slice(0, 200)}`).not.toBe(-32603);
        }
        expect(await sessionCount(), body.slice(0, 200)).toBe(before);
      }),
      { numRuns: 400 },
    );
    // Refusals of several kinds were generated: the transport's (400, 404, 406, 415) and JSON-RPC errors (200).
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 404]));
  }, 120_000);

  it('random tool arguments: a tool error or a JSON-RPC invalid-params error naming what is wrong; a refused call stores nothing', async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(toolCall, fc.integer({ min: 1, max: 1_000_000 }), async (params, id) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
        const before = await sessionCount();
        const { status, text } = await post(body, { 'mcp-session-id': session });
        expect(status, body.slice(0, 200)).toBeLessThan(500);
        const answer = messagesOf(text).find((m) => m.id === id);
        if (status !== 200) {
          expect(await sessionCount()).toBe(before);
          return;
        }
        expect(answer, text.slice(0, 200)).toBeDefined();
        if (answer!.error) {
          expect(answer!.error.code, answer!.error.message).toBe(-32602);
          refused++;
          expect(await sessionCount()).toBe(before);
          return;
        }
        const result = answer!.result as { isError?: boolean; content: { text: string }[] };
        if (result.isError) {
          refused++;
          expect(result.content[0]!.text.length).toBeGreaterThan(20);
          expect(await sessionCount(), `${result.content[0]!.text} for ${body.slice(0, 200)}`).toBe(before);
        } else {
          // A call that ran: one new session, no more.
          expect(await sessionCount()).toBeLessThanOrEqual(before + 1);
        }
      }),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(100);
    // Still serving.
    const { text } = await post(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }), {
      'mcp-session-id': session,
    });
    expect(messagesOf(text)[0]!.result!.tools).toHaveLength(3);
  }, 120_000);
});
