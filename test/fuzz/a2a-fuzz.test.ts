import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '@troupe/core';
import { createApp } from '@troupe/server';
import { a2aApp } from '@troupe/a2a';
import { echoAgent, jsonishValue } from './helpers.js';

// Property-based: generated JSON-RPC bodies thrown at the A2A endpoint, mounted beside the HTTP
// API as `troupe api --a2a` mounts it. For client input it answers a JSON-RPC error that is the
// client's (never an internal -32603, never an HTTP 5xx), stores nothing when it refuses, holds
// the API's input limits (nesting, sizes, ids) and keeps answering.

const sessionService = new InMemorySessionService();
const echo = echoAgent();
const api = createApp({ apps: { echo }, sessionService });
const a2a = a2aApp(echo, { baseUrl: 'http://127.0.0.1/a2a/echo', sessionService, appName: 'echo' });
api.route('/a2a/echo', a2a);

async function post(body: string, version: string | undefined): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (version !== undefined) headers['a2a-version'] = version;
  const res = await api.request('http://127.0.0.1/a2a/echo', { method: 'POST', headers, body });
  return { status: res.status, text: await res.text() };
}

async function sessionCount(): Promise<number> {
  return (await sessionService.listSessions({ appName: 'echo', userId: 'a2a' })).sessions.length;
}

const value = jsonishValue();

/** An id as clients get them wrong: empty, odd characters, far over the 256-character limit. */
const id = fc.oneof(
  fc.constantFrom('m1', 'ctx-1', '', 'a b', '../x', 'ctx.abcdefghijklmnop'),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: 257, max: 5000 }).map((n) => 'i'.repeat(n)),
  value,
);

/** A part of A2A 1.0 (`text`, `data`, `url`, `raw`) or 0.3 (`kind`), or something else. */
const part = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 30 }) }),
  fc.record({ data: value }),
  fc.record(
    { kind: fc.constantFrom('text', 'data', 'file'), text: fc.string(), data: value },
    { requiredKeys: ['kind'] },
  ),
  fc.record({ url: fc.webUrl() }),
  fc.record({ raw: fc.base64String({ maxLength: 40 }), mediaType: fc.constantFrom('text/plain', 'image/png', '') }),
  value,
);

const message = fc.record(
  {
    messageId: id,
    role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'user', 'agent', 7),
    kind: fc.constant('message'),
    parts: fc.oneof(fc.array(part, { maxLength: 4 }), value),
    contextId: id,
    taskId: id,
    referenceTaskIds: fc.array(id, { maxLength: 2 }),
    metadata: value,
  },
  { requiredKeys: ['messageId', 'role', 'parts'] },
);

const method = fc.constantFrom(
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/list',
);

const request = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), value),
    id: fc.oneof(fc.integer(), id, fc.constant(null)),
    method,
    params: fc.oneof(
      fc.record({ message, configuration: fc.oneof(fc.record({ returnImmediately: fc.boolean() }), value) }),
      fc.record({ id, historyLength: fc.oneof(fc.integer({ min: -5, max: 5 }), value) }),
      value,
    ),
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);

/** Nesting, counts and sizes past the limits, inside an otherwise valid SendMessage. */
const overLimits = fc.oneof(
  fc.integer({ min: 65, max: 3000 }).map((depth) => {
    const parts = `[{"data":${'['.repeat(depth)}${']'.repeat(depth)}}]`;
    return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":${parts}}}}`;
  }),
  fc.integer({ min: 10_001, max: 20_000 }).map((n) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: 'm', role: 'ROLE_USER', parts: Array.from({ length: n }, () => ({ text: '' })) },
      },
    }),
  ),
);

function rawBody(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: request.map((r) => JSON.stringify(r)), weight: 6 },
    { arbitrary: value.map((v) => JSON.stringify(v) ?? 'null'), weight: 1 },
    { arbitrary: overLimits, weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '',
        '{',
        'null',
        '[]',
        '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"__proto__":{"x":1}}}]}}}',
      ),
      weight: 1,
    },
  );
}

describe('fuzzing the A2A endpoint', () => {
  it('any JSON-RPC body: never a 5xx or an internal error, nothing stored on a refusal', async () => {
    const codes = new Set<number>();
    await fc.assert(
      fc.asyncProperty(rawBody(), fc.constantFrom('1.0', undefined), async (body, version) => {
        const before = await sessionCount();
        const { status, text } = await post(body, version);
        expect(status, body.slice(0, 200)).toBeLessThan(500);
        // A streaming answer is SSE: its frames are the task's, not a refusal.
        if (text.startsWith('data:') || text.startsWith('event:')) return;
        const answer = JSON.parse(text) as { error?: { code: number; message: string } };
        if (!answer.error) return;
        codes.add(answer.error.code);
        expect(answer.error.code, `${answer.error.message} for ${body.slice(0, 200)}`).not.toBe(-32603);
        expect(answer.error.message.length, body.slice(0, 200)).toBeLessThan(2000);
        expect(await sessionCount(), body.slice(0, 200)).toBe(before);
      }),
      {
        numRuns: 600,
        examples: [
          [
            '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}',
            '1.0',
          ],
        ],
      },
    );
    // Refusals of all kinds were generated: a bad envelope, a bad method, bad params.
    expect([...codes]).toEqual(expect.arrayContaining([-32600, -32601, -32602]));
    expect((await api.request('http://127.0.0.1/health')).status).toBe(200);
  }, 120_000);

  it('nesting and counts past the JSON limits: a -32602 naming the limit, nothing stored', async () => {
    await fc.assert(
      fc.asyncProperty(overLimits, async (body) => {
        const before = await sessionCount();
        const { status, text } = await post(body, '1.0');
        expect(status).toBe(200);
        expect((JSON.parse(text) as { error?: { code: number; message: string } }).error).toMatchObject({
          code: -32602,
          message: expect.stringMatching(/raise a2aApp's jsonLimits\.(maxDepth|maxItems)\.$/),
        });
        expect(await sessionCount()).toBe(before);
      }),
      { numRuns: 50 },
    );
    await a2a.shutdown({ gracePeriodMs: 0 });
  }, 60_000);
});
