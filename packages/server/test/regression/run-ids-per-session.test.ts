import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import type { BackgroundRunInfo, WireEvent, WireSession } from '../../src/index.js';
import { call, createSession, eventually, expectError, message } from '../helpers.js';
import { queuedApp, scriptedAgent } from '../queue/queued-app.js';

// Issue #28, item 18: with a queue, a run id the caller chose was unique across the whole store, so
// Bob enqueueing with Alice's id got 409 INVOCATION_EXISTS "Run 'alice-run-…' already exists" (telling
// him her id exists), and an id Bob took first blocked Alice's run. A caller-chosen id is now the
// caller's within the session, as an invocation id is in process: another user's id is answered
// exactly as an unknown one.

const tokens = { 'alice-token': 'alice', 'bob-token': 'bob' };
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

describeRedis('caller-chosen run ids are scoped to their session', () => {
  const redis = useRedis();

  it("Bob enqueues with Alice's run id as with an unknown one, and each reads only their own run", async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent(['one', 'two', 'three']) }, { auth: { tokens } });
    try {
      const alice = await createSession(api.app, 'chat', 'alice', undefined, as('alice-token'));
      const bob = await createSession(api.app, 'chat', 'bob', undefined, as('bob-token'));
      const runs = (s: WireSession) => `/apps/chat/users/${s.userId}/sessions/${s.id}/runs`;

      const first = await call(
        api.app,
        'POST',
        runs(alice),
        { newMessage: message('hi'), runId: 'alice-run-1' },
        as('alice-token'),
      );
      expect(first.status).toBe(202);
      const taken = await call(
        api.app,
        'POST',
        runs(bob),
        { newMessage: message('hi'), runId: 'alice-run-1' },
        as('bob-token'),
      );
      expect(taken.status).toBe(202);
      expect(await taken.json()).toMatchObject({ runId: 'alice-run-1', userId: 'bob', sessionId: bob.id });

      for (const [session, token, user] of [
        [alice, 'alice-token', 'alice'],
        [bob, 'bob-token', 'bob'],
      ] as const) {
        await eventually(async () => {
          const res = await call(api.app, 'GET', `${runs(session)}/alice-run-1`, undefined, as(token));
          expect(await res.json()).toMatchObject({ runId: 'alice-run-1', userId: user, status: 'completed' });
        });
        const stored = (await (
          await call(api.app, 'GET', `/apps/chat/users/${user}/sessions/${session.id}`, undefined, as(token))
        ).json()) as WireSession;
        expect(stored.events!.map((e) => e.invocationId)).toEqual(['alice-run-1', 'alice-run-1']);
        const listed = (await (
          await call(api.app, 'GET', runs(session), undefined, as(token))
        ).json()) as BackgroundRunInfo[];
        expect(listed.map((r) => [r.runId, r.userId])).toEqual([['alice-run-1', user]]);
      }

      // Within one session the id is still taken: a client repeating its request gets 409, naming only its own id.
      const again = await expectError(
        await call(api.app, 'POST', runs(bob), { newMessage: message('again'), runId: 'alice-run-1' }, as('bob-token')),
        409,
        'INVOCATION_EXISTS',
      );
      expect(again).toContain("'alice-run-1'");
      expect(again).toContain(bob.id);
    } finally {
      await api.close();
    }
  });

  it("an invocationId Bob takes first on /run does not block Alice's /run with the same id", async () => {
    const api = await queuedApp(redis().url, { chat: scriptedAgent(['for bob', 'for alice']) }, { auth: { tokens } });
    try {
      const bob = await createSession(api.app, 'chat', 'bob', undefined, as('bob-token'));
      const alice = await createSession(api.app, 'chat', 'alice', undefined, as('alice-token'));
      const run = (s: WireSession, token: string) =>
        call(
          api.app,
          'POST',
          '/run',
          { appName: 'chat', userId: s.userId, sessionId: s.id, newMessage: message('hi'), invocationId: 'turn-1' },
          as(token),
        );

      const bobs = await run(bob, 'bob-token');
      expect(bobs.status).toBe(200);
      expect(((await bobs.json()) as WireEvent[]).map((e) => [e.invocationId, e.content?.parts])).toEqual([
        ['turn-1', [{ text: 'for bob' }]],
      ]);
      const alices = await run(alice, 'alice-token');
      expect(alices.status).toBe(200);
      expect(((await alices.json()) as WireEvent[]).map((e) => [e.invocationId, e.content?.parts])).toEqual([
        ['turn-1', [{ text: 'for alice' }]],
      ]);
      // Bob repeating his own request is refused as in process: the session holds that invocation.
      await expectError(await run(bob, 'bob-token'), 409, 'INVOCATION_EXISTS');
    } finally {
      await api.close();
    }
  });
});
