import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { createApp } from '@troupe/server';
import { deskAgent, echoAgent, jsonishValue } from './helpers.js';

// Property-based: generated useChat requests thrown at the AI SDK route
// (`POST /apps/{app}/users/{user}/sessions/{id}/chat`). For client input the route answers a 4xx
// (never a 5xx), stores nothing when it refuses (no new chat session, no event in an existing
// one), and a 200 is a whole UI message stream that ends with `data: [DONE]`. A chat paused on an
// approval is among the targets, so approvals (with its real approval id or any other), denials
// and outputs for it are fuzzed too.

const sessionService = new InMemorySessionService();
const app = createApp({
  apps: {
    echo: echoAgent(),
    desk: deskAgent(),
  },
  sessionService,
});
const PAUSED = { appName: 'desk', userId: 'u', sessionId: 'paused-chat' };
const EXISTING = { appName: 'echo', userId: 'u', sessionId: 'fuzz-chat' };
/** Stands for the paused chat's open approval id in generated approvals. */
const REAL_ID = '<the open approval>';

async function post(path: string, body: string): Promise<{ status: number; type: string; text: string }> {
  const res = await app.request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

const chatPath = (key: { appName: string; userId: string; sessionId: string }) =>
  `/apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}/chat`;

/** What the store holds: every session of the two apps and its event count. */
async function stored(): Promise<string> {
  const counts: string[] = [];
  for (const appName of ['echo', 'desk']) {
    for (const session of (await sessionService.listSessions({ appName, userId: 'u' })).sessions) {
      const full = await sessionService.getSession({ appName, userId: 'u', sessionId: session.id });
      counts.push(`${appName}/${session.id}:${full?.events.length}`);
    }
  }
  return counts.sort().join(' ');
}

/** The paused chat's open approval, asking for one again when an earlier case answered it. */
async function openApproval(): Promise<string> {
  const session = await sessionService.getSession(PAUSED);
  const open = session ? openInterrupts(session.events) : [];
  if (open.length > 0) return open[0]!.id;
  const asked = await post(chatPath(PAUSED), JSON.stringify({ messages: [userText('please send 5')] }));
  expect(asked.status).toBe(200);
  return openInterrupts((await sessionService.getSession(PAUSED))!.events)[0]!.id;
}

function userText(text: string) {
  return { id: 'u1', role: 'user', parts: [{ type: 'text', text }] };
}

const value = jsonishValue(fc.constantFrom('__proto__', 'constructor', 'type', 'text', 'id', 'x'), 3);

/** Mostly well-formed, so that the route's deeper rules (parts, approvals, answers) are reached too. */
const sometimes = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: value });

const approval = fc.record(
  {
    id: fc.oneof(fc.constant(REAL_ID), fc.constant(REAL_ID), fc.string({ maxLength: 12 })),
    approved: sometimes(fc.boolean()),
    reason: sometimes(fc.string({ maxLength: 20 })),
  },
  { requiredKeys: ['id', 'approved'] },
);

const toolPart = fc.record(
  {
    type: fc.constantFrom('tool-transfer_money', 'dynamic-tool', 'tool-other'),
    toolCallId: sometimes(fc.oneof(fc.constantFrom('desk:t2', 'desk:t4', 'desk:t6'), fc.string({ maxLength: 12 }))),
    state: fc.constantFrom('approval-requested', 'approval-responded', 'output-available', 'output-error', 'x'),
    approval: sometimes(approval),
    output: fc.jsonValue({ maxDepth: 2 }),
    errorText: sometimes(fc.string({ maxLength: 20 })),
    input: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['type', 'state', 'approval'] },
);

const part = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('text'),
      text: sometimes(fc.oneof(fc.string({ maxLength: 30 }), fc.constant('send 5'))),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('file'),
      mediaType: sometimes(fc.constantFrom('image/png', 'text/plain', '')),
      url: sometimes(
        fc.constantFrom(
          'data:image/png;base64,iVBORw0KGgo=',
          'data:,plain',
          'https://example.com/a.png',
          'data:;base64,',
        ),
      ),
    }),
  },
  { weight: 4, arbitrary: toolPart },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.oneof(fc.constantFrom('step-start', 'data-x', 'reasoning'), fc.string({ maxLength: 10 })),
    }),
  },
  { weight: 1, arbitrary: value },
);

const message = sometimes(
  fc.record({
    id: sometimes(fc.constantFrom('m1', 'a1', 'chat-x')),
    role: sometimes(fc.constantFrom('user', 'user', 'assistant', 'assistant', 'system')),
    parts: sometimes(fc.array(part, { minLength: 1, maxLength: 4 })),
  }),
);

/** The paused chat's assistant message sent back with an answer, as useChat does after addToolApprovalResponse. */
const answerBody = fc
  .record({
    approved: sometimes(fc.boolean()),
    reason: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constant(REAL_ID) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    ),
    state: fc.constantFrom('approval-responded', 'approval-responded', 'approval-requested', 'output-available'),
    extra: fc.array(part, { maxLength: 2 }),
    trigger: fc.constantFrom('submit-message', 'regenerate-message'),
  })
  .map(({ approved, reason, id, state, extra, trigger }) => ({
    trigger,
    messages: [
      userText('please send 5'),
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          ...extra,
          { type: 'tool-transfer_money', toolCallId: 'desk:t2', state, input: {}, approval: { id, approved, reason } },
        ],
      },
    ],
  }));

const chatBody = fc.record(
  {
    id: sometimes(fc.constant('fuzz-chat')),
    messages: sometimes(fc.array(message, { minLength: 1, maxLength: 4 })),
    trigger: sometimes(fc.constantFrom('submit-message', 'submit-message', 'regenerate-message', 'resume-stream')),
    messageId: sometimes(fc.string({ maxLength: 10 })),
  },
  { requiredKeys: ['messages'] },
);

const rawBody = fc.oneof(
  { weight: 12, arbitrary: chatBody.map((b) => JSON.stringify(b)) },
  { weight: 6, arbitrary: answerBody.map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 120 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"messages":',
      '[]',
      '{"__proto__":{"polluted":1},"messages":[]}',
      `{"messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"${'['.repeat(20)}"}]}]}`,
      `{"messages":${'['.repeat(3000)}${']'.repeat(3000)}}`,
    ),
  },
);

const targets = fc.oneof(
  { weight: 3, arbitrary: fc.constant(chatPath(EXISTING)) },
  { weight: 3, arbitrary: fc.constant(chatPath(PAUSED)) },
  {
    weight: 2,
    arbitrary: fc
      .string({ minLength: 1, maxLength: 8 })
      // '.' and '..' are path segments a URL resolves away, so they name another route.
      .filter((id) => id !== '.' && id !== '..')
      .map((id) => chatPath({ ...EXISTING, sessionId: encodeURIComponent(id) })),
  },
  { weight: 1, arbitrary: fc.constant(chatPath({ ...EXISTING, appName: 'nope' })) },
);

describe('fuzzing the AI SDK chat route', () => {
  it('any useChat body: never a 5xx, a whole stream on 200, nothing stored on a refusal', async () => {
    await sessionService.createSession(EXISTING);
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(targets, rawBody, async (path, raw) => {
        const body =
          path === chatPath(PAUSED)
            ? raw.split(JSON.stringify(REAL_ID)).join(JSON.stringify(await openApproval()))
            : raw;
        const before = await stored();
        const res = await post(path, body);
        seen.add(Math.floor(res.status / 100));
        expect(res.status, `${path} ${body.slice(0, 300)}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(await stored(), `${path} ${body.slice(0, 300)}`).toBe(before);
          expect(JSON.parse(res.text)).toMatchObject({
            error: { code: expect.any(String), message: expect.any(String) },
          });
        } else {
          expect(res.type).toMatch(/^text\/event-stream/);
          expect(res.text.trimEnd().endsWith('data: [DONE]'), res.text.slice(-300)).toBe(true);
        }
      }),
      {
        numRuns: 800,
        examples: [
          [chatPath(EXISTING), JSON.stringify({ messages: [userText('hi')] })],
          [chatPath(PAUSED), JSON.stringify({ messages: [userText('please send 5')] })],
        ],
      },
    );
    // Valid requests are generated often enough to be exercised, not only refusals.
    expect([...seen].sort()).toEqual([2, 4]);
    expect((await post(chatPath(EXISTING), JSON.stringify({ messages: [userText('still there?')] }))).status).toBe(200);
  }, 120_000);
});
