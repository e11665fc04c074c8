import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FunctionAgent, InMemorySessionService, SequentialAgent } from '@troupe/core';
import { createApp } from '@troupe/server';
import { echoAgent, jsonishValue } from './helpers.js';

// Property-based: thousands of generated bodies, paths and headers thrown at a real app. For
// client input the server answers 4xx (never 500), stores nothing when it refuses, and keeps
// answering /health.

const sessionService = new InMemorySessionService();
const echo = echoAgent();
const pipeline = new SequentialAgent({
  name: 'Pipe',
  subAgents: [
    new FunctionAgent({ name: 'first', run: () => 'one' }),
    new FunctionAgent({ name: 'second', run: () => 'two' }),
  ],
});
const app = createApp({ apps: { echo, pipe: pipeline }, sessionService });
const SESSION = 'fuzz-session';

function request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Response> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...headers } };
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') init.body = body;
  return Promise.resolve(app.request(`http://127.0.0.1${path}`, init));
}

async function eventCount(): Promise<number> {
  const session = await sessionService.getSession({ appName: 'echo', userId: 'u', sessionId: SESSION });
  return session?.events.length ?? -1;
}

/** JSON-ish values, including keys and shapes that are easy to get wrong. */
const awkwardKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'app:x',
  'user:y',
  'temp:z',
  '',
  'a.b',
  '\u0000',
  '\ud800',
);
const value = jsonishValue(fc.oneof(awkwardKey, fc.string({ maxLength: 8 })));

/** Nesting far deeper than any real body. */
const deep = fc.integer({ min: 50, max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));

const runBody = fc.record(
  {
    appName: fc.oneof(fc.constant('echo'), fc.constant('echo'), fc.string({ maxLength: 10 })),
    userId: fc.oneof(fc.constant('u'), fc.constant('u'), fc.string({ maxLength: 10 })),
    sessionId: fc.oneof(fc.constant(SESSION), fc.constant(SESSION), fc.string({ maxLength: 10 })),
    newMessage: fc.oneof(
      fc.record({
        role: fc.constantFrom('user', 'model', 'x'),
        parts: fc.array(fc.oneof(fc.record({ text: fc.string() }), value), { maxLength: 3 }),
      }),
      value,
    ),
    input: value,
    stateDelta: value,
    streaming: value,
    invocationId: value,
  },
  { requiredKeys: ['appName', 'userId', 'sessionId'] },
);

function rawBody(): fc.Arbitrary<string> {
  return fc.oneof(
    runBody.map((b) => JSON.stringify(b)),
    value.map((v) => JSON.stringify(v) ?? 'null'),
    deep,
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '{"__proto__":{"polluted":1}}',
      '{"appName":"echo","userId":"u","sessionId":"fuzz-session","newMessage":{"role":"user","parts":[{"text":"hi"}]},"stateDelta":{"a":{"__proto__":{"x":1}}}}',
    ),
  );
}

const paths = fc.oneof(
  fc.constantFrom(
    '/run',
    '/run_sse',
    '/list-apps',
    '/health',
    `/apps/echo/users/u/sessions`,
    `/apps/echo/users/u/sessions/${SESSION}`,
    `/apps/echo/users/u/sessions/${SESSION}/resume`,
    `/apps/echo/graph`,
  ),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'apps',
          'echo',
          'users',
          'u',
          'sessions',
          SESSION,
          'resume',
          '..',
          '%00',
          '%2e%2e',
          '%E0%A4%A',
          'graph',
        ),
        fc.webSegment(),
      ),
      { minLength: 1, maxLength: 7 },
    )
    .map((segments) => `/${segments.join('/')}`),
);

describe('fuzzing the HTTP API', () => {
  it('any body on the run, session and resume routes: never a 500, nothing stored on a refusal', async () => {
    await sessionService.createSession({ appName: 'echo', userId: 'u', sessionId: SESSION });
    const targets = [
      '/run',
      '/run_sse',
      '/apps/echo/users/u/sessions',
      `/apps/echo/users/u/sessions/${SESSION}/resume`,
    ];
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), rawBody(), async (path, body) => {
        const before = await eventCount();
        const res = await request('POST', path, body);
        await res.text();
        seen.add(Math.floor(res.status / 100));
        expect(res.status, `${path} ${body.slice(0, 200)}`).toBeLessThan(500);
        if (res.status >= 400) expect(await eventCount()).toBe(before);
      }),
      // Valid runs are generated often enough to be exercised, not only refusals.
      {
        numRuns: 1500,
        examples: [
          [
            '/run',
            JSON.stringify({
              appName: 'echo',
              userId: 'u',
              sessionId: SESSION,
              newMessage: { role: 'user', parts: [{ text: 'hi' }] },
            }),
          ],
        ],
      },
    );
    expect([...seen].sort()).toEqual([2, 4]);
    expect((await request('GET', '/health')).status).toBe(200);
  }, 60_000);

  it('any path, method and headers: never a 500, and /health still answers', async () => {
    const headerName = fc.constantFrom(
      'content-type',
      'authorization',
      'origin',
      'host',
      'x-forwarded-for',
      'accept',
      'access-control-request-method',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'),
        paths,
        fc.dictionary(
          headerName,
          fc.string({ maxLength: 30 }).filter((v) => /^[\t\x20-\x7e]*$/.test(v)),
          { maxKeys: 3 },
        ),
        rawBody(),
        async (method, path, headers, body) => {
          const res = await request(method, path, body, headers);
          await res.text();
          expect(res.status, `${method} ${path}`).toBeLessThan(500);
        },
      ),
      { numRuns: 1500 },
    );
    expect((await request('GET', '/health')).status).toBe(200);
  }, 60_000);
});
