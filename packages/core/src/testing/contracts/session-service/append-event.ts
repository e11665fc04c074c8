import { describe, expect, it } from 'vitest';
import { StaleSessionError, type Event } from '../../../index.js';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, event, text, textOfEvent, expectPrototypeClean, sleep } from './helpers.js';

/** appendEvent: what is stored with the event, versions, stale copies, retried and partial events. */
export function appendEventTests(ctx: SessionContractContext): void {
  const { get, mustGet, append } = sessionCalls(ctx);

  describe('appendEvent', () => {
    it('stores the event and its state delta together and updates the given session in place', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const v0 = session.version;
      const stored = await append(session, { content: text('hi'), actions: { stateDelta: { count: 1 } } });

      expect(session.events.map((e) => e.id)).toEqual([stored.id]);
      expect(session.state).toEqual({ count: 1 });
      expect(session.version).toBeGreaterThan(v0);

      const got = await mustGet(session.id);
      expect(got.events.map((e) => e.id)).toEqual([stored.id]);
      expect(got.state).toEqual({ count: 1 });
      expect(got.version).toBe(session.version);
    });

    it('version is an integer that grows with every append', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const versions = [session.version];
      for (let i = 0; i < 3; i++) {
        await append(session, { content: text(`m${i}`) });
        versions.push(session.version);
        expect((await mustGet(session.id)).version).toBe(session.version);
      }
      for (let i = 1; i < versions.length; i++) {
        expect(Number.isInteger(versions[i])).toBe(true);
        expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
      }
    });

    it.each(['__proto__', 'constructor', 'prototype'])(
      "a delta with the key '%s' is rejected and nothing is stored",
      async (key) => {
        const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { a: 1 } });
        await append(session, { content: text('before') });
        const version = session.version;
        const delta = JSON.parse(`{"ok": 2, "${key}": {"polluted": true}}`) as Record<string, unknown>;
        const bad = event({ content: text('bad'), actions: { stateDelta: delta } });

        await expect(ctx.service.appendEvent({ session, event: bad })).rejects.toThrow(new RegExp(key));

        const got = await mustGet(session.id);
        expect(got.version).toBe(version);
        expect(got.state).toEqual({ a: 1 });
        expect(got.events.map((e) => textOfEvent(e))).toEqual(['before']);
        expect(session.version).toBe(version);
        expect(session.state).not.toHaveProperty('ok');
        expectPrototypeClean();

        // The copy was not advanced, so it can still append.
        await append(session, { content: text('after'), actions: { stateDelta: { ok: 3 } } });
        expect((await mustGet(session.id)).state).toEqual({ a: 1, ok: 3 });
      },
    );

    it('appending with a stale copy throws StaleSessionError and stores nothing', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const first = await mustGet(created.id);
      const second = await mustGet(created.id);

      await append(first, { content: text('from first'), actions: { stateDelta: { who: 'first' } } });
      const stale = append(second, {
        content: text('from second'),
        actions: { stateDelta: { who: 'second', extra: 1 } },
      });
      await expect(stale).rejects.toBeInstanceOf(StaleSessionError);

      const got = await mustGet(created.id);
      expect(got.events.map(textOfEvent)).toEqual(['from first']);
      expect(got.state).toEqual({ who: 'first' });
      expect(got.version).toBe(first.version);
      expect(second.events).toEqual([]);
      expect(second.state).toEqual({});

      // Reloading gives a copy that can append again.
      const reloaded = await mustGet(created.id);
      await append(reloaded, { content: text('after reload') });
      expect((await mustGet(created.id)).events.map(textOfEvent)).toEqual(['from first', 'after reload']);
    });

    it('of two concurrent appends from copies at the same version, exactly one is stored', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const a = await mustGet(created.id);
      const b = await mustGet(created.id);
      const results = await Promise.allSettled([append(a, { content: text('a') }), append(b, { content: text('b') })]);

      const fulfilled = results.filter((r) => r.status === 'fulfilled');
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(StaleSessionError);
      expect((await mustGet(created.id)).events).toHaveLength(1);
    });

    it('an event appended twice (same id) is stored once; the second call returns the stored event', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const e = event({ content: text('once'), actions: { stateDelta: { n: 1 } } });
      const first = await ctx.service.appendEvent({ session, event: e });
      const version = session.version;

      const again = await ctx.service.appendEvent({
        session,
        event: { ...structuredClone(e), content: text('changed'), actions: { ...e.actions, stateDelta: { n: 2 } } },
      });
      expect(again).toEqual(first);
      expect(textOfEvent(again)).toBe('once');

      const got = await mustGet(session.id);
      expect(got.events).toHaveLength(1);
      expect(got.state).toEqual({ n: 1 });
      expect(got.version).toBe(version);
      expect(session.events).toHaveLength(1);
    });

    it('in a long session, re-appending any earlier event (first, middle, last) stores nothing', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const stored: Event[] = [];
      for (let i = 0; i < 40; i++)
        stored.push(await ctx.service.appendEvent({ session, event: event({ content: text(`event ${i}`) }) }));
      const version = session.version;
      for (const i of [0, 15, 16, 17, 39]) {
        const again = await ctx.service.appendEvent({ session, event: structuredClone(stored[i]!) });
        expect(textOfEvent(again)).toBe(`event ${i}`);
      }
      const got = await mustGet(session.id);
      expect(got.events).toHaveLength(40);
      expect(got.version).toBe(version);
      const fresh = await ctx.service.appendEvent({ session, event: event({ content: text('event 40') }) });
      expect(textOfEvent(fresh)).toBe('event 40');
      expect((await mustGet(session.id)).events).toHaveLength(41);
    });

    it('an event already stored, appended again through a stale copy, returns the stored event instead of failing', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const fresh = await mustGet(created.id);
      const stale = await mustGet(created.id);
      const e = event({ content: text('retry me'), actions: { stateDelta: { n: 1 } } });
      const first = await ctx.service.appendEvent({ session: fresh, event: e });
      await append(fresh, { content: text('later') });

      const retried = await ctx.service.appendEvent({ session: stale, event: structuredClone(e) });
      expect(retried).toEqual(first);
      const got = await mustGet(created.id);
      expect(got.events.map(textOfEvent)).toEqual(['retry me', 'later']);
      expect(got.version).toBe(fresh.version);
    });

    it('partial events are returned but never stored', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const version = session.version;
      const chunk = event({ partial: true, content: text('Hel') });
      const returned = await ctx.service.appendEvent({ session, event: chunk });
      expect(returned.id).toBe(chunk.id);

      const got = await mustGet(session.id);
      expect(got.events).toEqual([]);
      expect(got.version).toBe(version);
      // Not stored, so the same id can still be stored as a whole event.
      await ctx.service.appendEvent({ session, event: { ...chunk, partial: false, content: text('Hello') } });
      expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['Hello']);
    });

    it('lastUpdateTime advances with appends', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const created = session.lastUpdateTime;
      await sleep(15);
      await append(session, { content: text('later') });
      expect(session.lastUpdateTime).toBeGreaterThan(created);
      const got = await mustGet(session.id);
      expect(got.lastUpdateTime).toBeGreaterThan(created);
      const listed = (await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions.find(
        (s) => s.id === session.id,
      );
      expect(listed!.lastUpdateTime).toBe(got.lastUpdateTime);
    });

    it('appending to a session that does not exist is an error', async () => {
      const goneId = ctx.uid('gone');
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: goneId });
      await ctx.service.deleteSession({ appName: ctx.app, userId: USER, sessionId: goneId });
      await expect(append(session, { content: text('lost') })).rejects.toThrow(/gone/);
      expect(await get(goneId)).toBeUndefined();
    });
  });
}
