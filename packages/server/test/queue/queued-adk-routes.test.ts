import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionAgent } from '@troupe/core';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, WireEvent, WireSession } from '../../src/index.js';
import { call, createSession, eventually, expectError, message, runBody } from '../helpers.js';
import { bankAgent } from '../helpers.js';
import { queuedApp, readIdFrames, scriptedAgent, slowAgent } from './queued-app.js';

// ADK's routes with createApp({ queue }): /run_sse, /run, resume and cancel keep their bodies and
// answers, while the runs execute on a worker (here one in this process, on a private Redis).

describeRedis('ADK routes through the queue', () => {
  const redis = useRedis();

  it('/run_sse enqueues and streams the run: frames carry id: and data: in one write, partial text included', async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent([{ chunks: ['Hel', 'lo ', 'there.'] }]) });
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const res = await call(api.app, 'POST', '/run_sse', {
        appName: 'chat',
        userId: 'alice',
        sessionId: s.id,
        newMessage: message('hi'),
        streaming: true,
        invocationId: 'turn-1',
      });
      const { chunks, frames } = await readIdFrames(res);
      expect(chunks).toHaveLength(frames.length);
      expect(frames.map((f) => [f.event.partial ?? false, f.event.content!.parts[0]])).toEqual([
        [true, { text: 'Hel' }],
        [true, { text: 'lo ' }],
        [true, { text: 'there.' }],
        [false, { text: 'Hello there.' }],
      ]);
      expect(frames.every((f) => f.event.invocationId === 'turn-1')).toBe(true);
      // The wire encoding of /run_sse: timestamps in seconds.
      expect(frames[3]!.event.timestamp).toBeLessThan(Date.now() / 100);
      // A run id the caller chose is that session's: the queue finds it with the session.
      const session = { appName: 'chat', userId: 'alice', sessionId: s.id };
      expect((await api.queue.status('turn-1', session)).status).toBe('completed');
    } finally {
      await api.close();
    }
  });

  it('/run answers with the JSON array of stored events, as in process; a failed run ends with its error event', async () => {
    const api = await queuedApp(redis().url, {
      chat: scriptedAgent([{ chunks: ['A', 'B'] }, { error: 'model down', status: 503 }]),
    });
    try {
      const s = await createSession(api.app, 'chat', 'alice');
      const body = { appName: 'chat', userId: 'alice', sessionId: s.id, streaming: true };
      const ok = await call(api.app, 'POST', '/run', { ...body, newMessage: message('one') });
      expect(ok.status).toBe(200);
      const events = (await ok.json()) as WireEvent[];
      expect(events.map((e) => e.content!.parts)).toEqual([[{ text: 'AB' }]]);
      const session = (await (
        await call(api.app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(events).toEqual(session.events!.slice(1));

      const failed = (await (
        await call(api.app, 'POST', '/run', { ...body, newMessage: message('two') })
      ).json()) as WireEvent[];
      expect(failed.at(-1)).toMatchObject({ errorCode: 'MODEL', errorMessage: expect.stringMatching(/model down/) });
      await expectError(
        await call(api.app, 'POST', '/run', { ...body, appName: 'nope', newMessage: message('x') }),
        404,
        'APP_NOT_FOUND',
      );
    } finally {
      await api.close();
    }
  });

  it('resume puts the paused run back on the queue with the answers and streams only what follows the pause', async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Done: sent 500.',
    ]);
    const api = await queuedApp(redis().url, { bank: agent });
    try {
      const s = await createSession(api.app, 'bank', 'alice');
      const paused = await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'send 500')));
      const interrupt = paused.frames.at(-1)!.event.interrupt!;
      const runId = paused.frames[0]!.event.invocationId;
      expect(interrupt).toMatchObject({ id: 'Banker:c1', kind: 'confirmation' });
      const runPath = `/apps/bank/users/alice/sessions/${s.id}/runs/${runId}`;
      expect(((await (await call(api.app, 'GET', runPath)).json()) as BackgroundRunInfo).status).toBe('interrupted');
      expect(sent).toEqual([]);

      // Without invocationId, the session's paused invocation is answered.
      const resumed = await readIdFrames(
        await call(api.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
          responses: { [interrupt.id]: true },
        }),
      );
      expect(sent).toEqual([500]);
      const before = new Set(paused.frames.map((f) => f.event.id));
      expect(resumed.frames.some((f) => before.has(f.event.id))).toBe(false);
      expect(resumed.frames[0]!.event.content!.parts[0]).toEqual({
        functionResponse: { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } },
      });
      expect(resumed.frames.at(-1)!.event.content!.parts).toEqual([{ text: 'Done: sent 500.' }]);
      expect(((await (await call(api.app, 'GET', runPath)).json()) as BackgroundRunInfo).status).toBe('completed');

      // Nothing is paused any more: a resume is a 400 that changes nothing.
      await expectError(
        await call(api.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
          responses: { [interrupt.id]: true },
        }),
        400,
        'INVALID_REQUEST',
      );
      await expectError(
        await call(api.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
          invocationId: runId,
          responses: { [interrupt.id]: true },
        }),
        400,
        'CONFIGURATION',
      );
      expect(sent).toEqual([500]);
    } finally {
      await api.close();
    }
  });

  it("a resume after the paused run's live stream expired streams only what follows the pause too", async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 7 }, id: 'c1' }] },
      { chunks: ['Sent ', '7.'] },
    ]);
    const api = await queuedApp(redis().url, { bank: agent }, { streamTtlMs: 1_000 });
    try {
      const s = await createSession(api.app, 'bank', 'alice');
      const paused = await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'send 7')));
      const runId = paused.frames[0]!.event.invocationId;
      // Past the stream's TTL, the worker that takes the resume publishes the stored events again first.
      await sleep(1_300);
      const resumed = await readIdFrames(
        await call(api.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
          invocationId: runId,
          responses: { 'Banker:c1': true },
          streaming: true,
        }),
      );
      expect(sent).toEqual([7]);
      const before = new Set(paused.frames.map((f) => f.event.id));
      expect(resumed.frames.some((f) => before.has(f.event.id))).toBe(false);
      expect(resumed.frames.map((f) => [f.event.partial ?? false, f.event.content!.parts[0]])).toEqual([
        [false, { functionResponse: { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 7 } } }],
        [true, { text: 'Sent ' }],
        [true, { text: '7.' }],
        [false, { text: 'Sent 7.' }],
      ]);
    } finally {
      await api.close();
    }
  });

  it('a turn the runner would refuse keeps its status: 409 on a paused session, 400 for an input the worker refused', async () => {
    const { agent } = bankAgent([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }]);
    const typed = new FunctionAgent({
      name: 'Typed',
      inputSchema: z.object({ city: z.string() }),
      run: ({ city }) => `Weather in ${city}`,
    });
    const api = await queuedApp(redis().url, { bank: agent, typed });
    try {
      const s = await createSession(api.app, 'bank', 'alice');
      await readIdFrames(await call(api.app, 'POST', '/run_sse', runBody(s, 'send 5')));
      const turn = { appName: 'bank', userId: 'alice', sessionId: s.id, newMessage: message('and 6') };
      expect(await expectError(await call(api.app, 'POST', '/run', turn), 409, 'PENDING_INTERRUPT')).toMatch(
        /unanswered interrupt\(s\) \(Banker:c1\)/,
      );
      await expectError(await call(api.app, 'POST', '/run_sse', turn), 409, 'PENDING_INTERRUPT');
      await expectError(
        await call(api.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/runs`, { newMessage: message('and 6') }),
        409,
        'PENDING_INTERRUPT',
      );
      expect(
        (await api.queue.list({ appName: 'bank', userId: 'alice', sessionId: s.id })).map((r) => r.status),
      ).toEqual(['interrupted']);

      const t = await createSession(api.app, 'typed', 'alice');
      const refused = await call(api.app, 'POST', '/run', {
        appName: 'typed',
        userId: 'alice',
        sessionId: t.id,
        input: { city: 3 },
      });
      expect(await expectError(refused, 400, 'INPUT_VALIDATION')).toMatch(/does not match its inputSchema/);
      const ok = (await (
        await call(api.app, 'POST', '/run', {
          appName: 'typed',
          userId: 'alice',
          sessionId: t.id,
          input: { city: 'Oslo' },
        })
      ).json()) as WireEvent[];
      expect(ok.at(-1)!.content!.parts).toEqual([{ text: 'Weather in Oslo' }]);
    } finally {
      await api.close();
    }
  });

  it('POST .../sessions/{id}/cancel cancels the queued run and answers with its stored CANCELLED event; the stream ends with it', async () => {
    const api = await queuedApp(redis().url, { slow: slowAgent(5_000) });
    try {
      const s = await createSession(api.app, 'slow', 'alice');
      const stream = call(api.app, 'POST', '/run_sse', {
        appName: 'slow',
        userId: 'alice',
        sessionId: s.id,
        newMessage: message('go'),
        invocationId: 'long',
      });
      const key = { appName: 'slow', userId: 'alice', sessionId: s.id };
      await eventually(async () => expect((await api.queue.status('long', key)).status).toBe('running'));
      const res = await call(api.app, 'POST', `/apps/slow/users/alice/sessions/${s.id}/cancel`);
      expect(res.status).toBe(200);
      const ended = (await res.json()) as WireEvent;
      expect(ended).toMatchObject({ invocationId: 'long', errorCode: 'CANCELLED' });
      const session = (await (
        await call(api.app, 'GET', `/apps/slow/users/alice/sessions/${s.id}`)
      ).json()) as WireSession;
      expect(session.events!.at(-1)).toEqual(ended);
      const { frames } = await readIdFrames(await stream);
      expect(frames.at(-1)!.event).toEqual(ended);
      // Nothing is left to stop.
      await expectError(await call(api.app, 'POST', `/apps/slow/users/alice/sessions/${s.id}/cancel`), 404, 'NO_RUN');
    } finally {
      await api.close();
    }
  });
});
