import { beforeEach, describe, expect, it } from 'vitest';
import { LeaseLostError, StaleSessionError, type SessionService } from '../../../index.js';
import type { LeasingSessionService } from '../../../stores/index.js';
import { sessionCalls, type SessionContractContext, type SessionServiceFixture } from './context.js';
import { USER, OTHER_USER, event, text, session0, textOfEvent, sleep } from './helpers.js';

/**
 * Two service instances over the same storage, as two processes would open it: what one writes the
 * other sees, and races between them end as they would within one instance.
 */
export function twoInstanceTests<F extends SessionServiceFixture>(
  ctx: SessionContractContext<F>,
  openSecond: (first: F) => Promise<SessionServiceFixture>,
  withLeases: boolean,
): void {
  const { get, mustGet, append } = sessionCalls(ctx);

  describe('two service instances on the same storage', () => {
    let other: SessionService;

    beforeEach(async () => {
      const second = await openSecond(ctx.fixture);
      other = second.service;
      if (second.close) ctx.closeAfterTest(second.close);
    });

    it('a session created through one instance is read, listed and deleted through the other', async () => {
      const session = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        state: { a: 1, 'user:u': 2, 'app:x': 3 },
      });
      const e = await append(session, { content: text('hello'), actions: { stateDelta: { b: 2 } } });

      const seen = await mustGet(session.id, USER, ctx.app, other);
      expect(seen.state).toEqual({ a: 1, b: 2, 'user:u': 2, 'app:x': 3 });
      expect(seen.events).toEqual([e]);
      expect(seen.version).toBe(session.version);
      expect((await other.listSessions({ appName: ctx.app, userId: USER })).sessions.map((s) => s.id)).toEqual([
        session.id,
      ]);
      expect((await other.createSession({ appName: ctx.app, userId: OTHER_USER })).state).toEqual({ 'app:x': 3 });

      await other.deleteSession({ appName: ctx.app, userId: USER, sessionId: session.id });
      expect(await get(session.id)).toBeUndefined();
    });

    it('a copy read before the other instance appended is stale there too', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const here = await mustGet(created.id);
      const there = await mustGet(created.id, USER, ctx.app, other);

      await append(there, { content: text('there'), actions: { stateDelta: { who: 'there' } } }, other);
      await expect(
        append(here, { content: text('here'), actions: { stateDelta: { who: 'here' } } }),
      ).rejects.toBeInstanceOf(StaleSessionError);

      const got = await mustGet(created.id);
      expect(got.events.map(textOfEvent)).toEqual(['there']);
      expect(got.state).toEqual({ who: 'there' });
      const reloaded = await mustGet(created.id);
      await append(reloaded, { content: text('here, reloaded') });
      expect((await mustGet(created.id, USER, ctx.app, other)).events.map(textOfEvent)).toEqual([
        'there',
        'here, reloaded',
      ]);
    });

    it('concurrent appends through both instances at the same version: exactly one is stored', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const here = await mustGet(created.id);
      const there = await mustGet(created.id, USER, ctx.app, other);
      const results = await Promise.allSettled([
        append(here, { content: text('here'), actions: { stateDelta: { n: 'here' } } }),
        append(there, { content: text('there'), actions: { stateDelta: { n: 'there' } } }, other),
      ]);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(StaleSessionError);
      const got = await mustGet(created.id);
      expect(got.events).toHaveLength(1);
      expect(got.state.n).toBe(textOfEvent(got.events[0]!));
    });

    it('an event id stored through one instance is not stored again through the other', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const e = event({ content: text('once'), actions: { stateDelta: { n: 1 } } });
      const first = await ctx.service.appendEvent({ session: created, event: e });
      const there = await mustGet(created.id, USER, ctx.app, other);
      const again = await other.appendEvent({ session: there, event: structuredClone(e) });
      expect(again).toEqual(first);
      expect((await mustGet(created.id)).events).toHaveLength(1);
    });

    it('an incremental read through one instance brings what the other appended', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(session, { content: text('here') });
      const held = session0(session);
      const there = await mustGet(session.id, USER, ctx.app, other);
      const e = await append(there, { content: text('there'), actions: { stateDelta: { 'user:seen': true } } }, other);
      const got = (await ctx.service.getSession({
        appName: ctx.app,
        userId: USER,
        sessionId: session.id,
        afterVersion: held.version,
      }))!;
      expect(got.events).toEqual([e]);
      expect(got.increment!.baseEventId).toBe(held.events.at(-1)!.id);
      expect(got.state).toEqual({ 'user:seen': true });
      expect(got.version).toBe(there.version);
    });

    it('user: and app: state written through one instance is seen through the other; temp: is never stored', async () => {
      const a = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(a, { actions: { stateDelta: { 'user:lang': 'fr', 'app:flag': 1, 'temp:t': 1 } } });
      const b = await other.createSession({ appName: ctx.app, userId: USER });
      expect(b.state).toEqual({ 'user:lang': 'fr', 'app:flag': 1 });
      expect((await mustGet(a.id, USER, ctx.app, other)).state).toEqual({ 'user:lang': 'fr', 'app:flag': 1 });
    });

    if (withLeases) {
      it('a lease taken through one instance excludes owners on the other; a takeover there makes the appends of the first fail', async () => {
        const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
        const k = { appName: ctx.app, userId: USER, sessionId: session.id };
        const here = ctx.service as LeasingSessionService;
        const there = other as LeasingSessionService;
        // Both instances connected first: the lease's short life must not be spent opening a connection.
        await mustGet(session.id, USER, ctx.app, other);
        const a = await here.leaseSession({ ...k, owner: 'a', ttlMs: 400 });
        expect(a).toBeDefined();
        expect(await there.leaseSession({ ...k, owner: 'b', ttlMs: 30_000 })).toBeUndefined();
        await sleep(600);
        const b = await there.leaseSession({ ...k, owner: 'b', ttlMs: 30_000 });
        expect(b).toBeDefined();
        await expect(
          ctx.service.appendEvent({ session, event: event({ content: text('late') }), lease: a }),
        ).rejects.toBeInstanceOf(LeaseLostError);
        expect((await mustGet(session.id, USER, ctx.app, other)).events).toEqual([]);
      });
    }
  });
}
