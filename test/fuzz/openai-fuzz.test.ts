import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '@troupe/core';
import { createApp } from '@troupe/server';
import { deskAgent, echoAgent, jsonishValue } from './helpers.js';

// Property-based: generated chat completion requests thrown at `POST /v1/chat/completions`
// (createApp({ openai: true })). For client input the endpoint answers a 4xx in OpenAI's error
// shape (never a 5xx), stores nothing when it refuses (no new session, no event in the session its
// X-Session-Id names), and keeps answering. A session paused on an approval is among the targets,
// so answers to it (yes, no, anything else) are fuzzed too.

const sessionService = new InMemorySessionService();
const app = createApp({
  apps: {
    echo: echoAgent(),
    desk: deskAgent(),
  },
  sessionService,
  openai: true,
});

async function post(body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await app.request('http://127.0.0.1/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** What is stored: the number of sessions of each app, and the events of the paused session. */
async function stored(pausedId: string): Promise<string> {
  const counts = await Promise.all(
    ['echo', 'desk'].map(
      async (appName) => (await sessionService.listSessions({ appName, userId: 'openai' })).sessions.length,
    ),
  );
  const paused = await sessionService.getSession({ appName: 'desk', userId: 'openai', sessionId: pausedId });
  return JSON.stringify([counts, paused?.events.length]);
}

const value = jsonishValue();

/** A content part as clients send them, well or badly formed. */
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string({ maxLength: 20 }), value) }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.record({
      url: fc.oneof(
        fc.constantFrom('data:image/png;base64,iVBORw0KGgo=', 'data:image/png;base64,***', 'https://x.test/a.png'),
        fc.base64String({ maxLength: 20 }).map((b) => `data:image/jpeg;base64,${b}`),
        value,
      ),
    }),
  }),
  fc.record({
    type: fc.constant('input_audio'),
    input_audio: fc.record({ data: value, format: fc.constantFrom('wav', 'mp3', 'ogg') }),
  }),
  fc.record({ type: fc.constant('file'), file: fc.record({ file_data: value, file_id: value }, { requiredKeys: [] }) }),
  fc.record({ type: fc.constantFrom('refusal', 'video', ''), refusal: value }),
  value,
);

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'user', 'assistant', 'system', 'developer', 'tool', 'function'), value),
    content: fc.oneof(
      fc.constantFrom('hi', 'send 5', 'yes', 'no', 'maybe', ''),
      fc.string({ maxLength: 30 }),
      fc.array(part, { maxLength: 3 }),
      value,
    ),
    name: value,
    tool_calls: value,
  },
  { requiredKeys: ['role'] },
);

const body = fc.record(
  {
    model: fc.oneof(fc.constantFrom('echo', 'desk', 'desk', 'gpt-4o', ''), value),
    messages: fc.oneof(
      fc.array(message, { minLength: 1, maxLength: 4 }),
      fc.constantFrom([{ role: 'user', content: 'hi' }], [{ role: 'user', content: 'yes' }]),
      value,
    ),
    stream: fc.oneof(fc.boolean(), value),
    stream_options: fc.oneof(fc.record({ include_usage: fc.oneof(fc.boolean(), value) }), value),
    n: fc.oneof(fc.constantFrom(1, 2, null), value),
    tools: fc.oneof(fc.constant([]), value),
    tool_choice: value,
    response_format: fc.oneof(fc.constantFrom({ type: 'text' }, { type: 'json_object' }), value),
    user: fc.oneof(fc.string({ maxLength: 10 }), value),
    temperature: value,
  },
  { requiredKeys: [] },
);

/** Requests a client gets right, so that turns, answers and streams are exercised, not only refusals. */
const validBody = fc
  .record({
    model: fc.constantFrom('echo', 'desk'),
    history: fc.array(
      fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: fc.string({ maxLength: 20 }) }),
      { maxLength: 3 },
    ),
    last: fc.oneof(fc.constantFrom('hi', 'send 5', 'yes', 'no', 'maybe', 'Y', 'nope'), fc.string({ maxLength: 20 })),
    stream: fc.boolean(),
    includeUsage: fc.boolean(),
  })
  .map(({ model, history, last, stream, includeUsage }) => ({
    model,
    messages: [...history, { role: 'user', content: last }],
    stream,
    ...(stream && includeUsage ? { stream_options: { include_usage: true } } : {}),
  }));

function rawBody(): fc.Arbitrary<string> {
  return fc.oneof(
    validBody.map((b) => JSON.stringify(b)),
    validBody.map((b) => JSON.stringify(b)),
    body.map((b) => JSON.stringify(b)),
    body.map((b) => JSON.stringify(b)),
    value.map((v) => JSON.stringify(v) ?? 'null'),
    fc.integer({ min: 50, max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '{"__proto__":{"polluted":1}}',
      '{"model":"echo","messages":[{"__proto__":1}]}',
    ),
  );
}

describe('fuzzing the OpenAI-compatible endpoint', () => {
  it('any body and X-Session-Id: never a 5xx, errors in OpenAI’s shape, nothing stored on a refusal', async () => {
    const paused = await post(JSON.stringify({ model: 'desk', messages: [{ role: 'user', content: 'send 1' }] }), {});
    expect(paused.status).toBe(200);
    const pausedId = (await sessionService.listSessions({ appName: 'desk', userId: 'openai' })).sessions[0]!.id;
    const sessionHeader = fc.oneof(
      fc.constant(undefined),
      fc.constant(pausedId),
      fc.constant(pausedId),
      fc.constantFrom('', 'no-such-session', 'x'.repeat(300)),
      fc.string({ maxLength: 20 }).filter((v) => /^[\x20-\x7e]*$/.test(v)),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(rawBody(), sessionHeader, async (raw, sessionId) => {
        const before = await stored(pausedId);
        const res = await post(raw, sessionId === undefined ? {} : { 'x-session-id': sessionId });
        seen.add(Math.floor(res.status / 100));
        expect(res.status, `${sessionId} ${raw.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) {
          const error = (JSON.parse(res.text) as { error: Record<string, unknown> }).error;
          expect(typeof error.message).toBe('string');
          expect(error.type).toBe('invalid_request_error');
          expect(typeof error.code).toBe('string');
          expect(await stored(pausedId)).toBe(before);
        }
      }),
      {
        numRuns: 1500,
        examples: [
          [JSON.stringify({ model: 'echo', messages: [{ role: 'user', content: 'hi' }] }), undefined],
          [JSON.stringify({ model: 'desk', messages: [{ role: 'user', content: 'maybe' }] }), pausedId],
        ],
      },
    );
    expect([...seen].sort()).toEqual([2, 4]);
    const models = await app.request('http://127.0.0.1/v1/models');
    expect(models.status).toBe(200);
  }, 120_000);
});
