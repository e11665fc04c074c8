import { describe, expect, it } from 'vitest';
import { type Session, type SessionService } from '../../../index.js';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, OTHER_USER, text, session0, textOfEvent } from './helpers.js';

/** getSession with `afterVersion`: only the events after a version the caller holds, with the current state. */
export function incrementalReadTests(ctx: SessionContractContext): void {
  const { mustGet, append } = sessionCalls(ctx);

  describe('incremental reads (afterVersion)', () => {
    const since = (
      session: Session,
      afterVersion: number,
      from: SessionService = ctx.service,
      userId = USER,
    ): Promise<Session | undefined> =>
      from.getSession({ appName: ctx.app, userId, sessionId: session.id, afterVersion });

    it('returns only the events stored after that version, with the current state, version and lastUpdateTime', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { a: 1 } });
      const first = await append(session, { content: text('one'), actions: { stateDelta: { b: 1 } } });
      const held = session.version;
      const second = await append(session, { content: text('two'), actions: { stateDelta: { b: 2 } } });
      const third = await append(session, {
        content: text('three'),
        timestamp: first.timestamp + 50,
        actions: { stateDelta: { c: 3 } },
      });

      const got = (await since(session, held))!;
      expect(got.events.map((e) => e.id)).toEqual([second.id, third.id]);
      expect(got.events[1]).toEqual(third);
      expect(got.state).toEqual({ a: 1, b: 2, c: 3 });
      expect(got.version).toBe(session.version);
      expect(got.lastUpdateTime).toBe((await mustGet(session.id)).lastUpdateTime);
      expect(got.increment).toEqual({ afterVersion: held, baseEventId: first.id });
    });

    it('a copy plus the events after its version equals a whole read, and a full read carries no increment', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      for (let i = 0; i < 5; i++) await append(session, { content: text(`m${i}`), actions: { stateDelta: { n: i } } });
      const copy = await mustGet(session.id);
      expect(copy.increment).toBeUndefined();
      for (let i = 5; i < 8; i++) await append(session, { content: text(`m${i}`), actions: { stateDelta: { n: i } } });
      const got = (await since(copy, copy.version))!;
      expect(got.increment!.baseEventId).toBe(copy.events.at(-1)!.id);
      expect([...copy.events, ...got.events]).toEqual((await mustGet(session.id)).events);
      // From version 0: every event, and no event before it.
      const all = (await since(session, 0))!;
      expect(all.events.map(textOfEvent)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
      expect(all.increment).toEqual({ afterVersion: 0, baseEventId: undefined });
    });

    it('at the current version: no events, the same version', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { a: 1 } });
      const last = await append(session, { content: text('only') });
      const got = (await since(session, session.version))!;
      expect(got.events).toEqual([]);
      expect(got.version).toBe(session.version);
      expect(got.state).toEqual({ a: 1 });
      expect(got.increment).toEqual({ afterVersion: session.version, baseEventId: last.id });
    });

    it('a version ahead of the store: no events, and the lower version the store holds', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const last = await append(session, { content: text('only') });
      const got = (await since(session, session.version + 5))!;
      expect(got.events).toEqual([]);
      expect(got.version).toBe(session.version);
      expect(got.version).toBeLessThan(got.increment!.afterVersion);
      expect(got.increment!.baseEventId).toBe(last.id);
    });

    it('a session deleted and created again under the same id does not continue the old copy', async () => {
      const id = ctx.uid('reborn');
      const old = await ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: id });
      await append(old, { content: text('old 1') });
      const oldLast = await append(old, { content: text('old 2') });
      await ctx.service.deleteSession({ appName: ctx.app, userId: USER, sessionId: id });
      const reborn = await ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: id });
      for (let i = 0; i < 3; i++) await append(reborn, { content: text(`new ${i}`) });

      const got = (await since(old, old.version))!;
      // Versions alone would pass; the event at that version tells the copies apart.
      expect(got.version).toBeGreaterThanOrEqual(old.version);
      expect(got.increment!.baseEventId).toBeDefined();
      expect(got.increment!.baseEventId).not.toBe(oldLast.id);
      expect(got.events.map(textOfEvent)).toEqual(['new 2']);
      expect(await since(old, 0, ctx.service, OTHER_USER)).toBeUndefined();
    });

    it("brings user: and app: keys written by another of the user's sessions; temp: keys are never there", async () => {
      const mine = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { own: 1 } });
      await append(mine, { content: text('hello'), actions: { stateDelta: { 'temp:scratch': 1, own: 2 } } });
      const held = session0(mine);
      const elsewhere = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(elsewhere, { actions: { stateDelta: { 'user:lang': 'fr', 'app:motd': 'hi', other: 1 } } });

      const got = (await since(held, held.version))!;
      expect(got.events).toEqual([]);
      expect(got.state).toEqual({ own: 2, 'user:lang': 'fr', 'app:motd': 'hi' });
      expect(got.state).not.toHaveProperty('temp:scratch');

      await append(elsewhere, { actions: { stateDelta: { 'user:lang': undefined } } });
      await append(mine, { content: text('again'), actions: { stateDelta: { 'temp:more': 1 } } });
      const later = (await since(held, held.version))!;
      expect(later.events.map(textOfEvent)).toEqual(['again']);
      expect(later.events[0]!.actions.stateDelta).toEqual({});
      expect(later.state).toEqual({ own: 2, 'app:motd': 'hi' });
    });

    it('combines with numRecentEvents and afterTimestamp', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const base = Date.now();
      await append(session, { content: text('a'), timestamp: base });
      const held = session.version;
      await append(session, { content: text('b'), timestamp: base + 10 });
      await append(session, { content: text('c'), timestamp: base + 20 });
      await append(session, { content: text('d'), timestamp: base + 30 });
      const key = { appName: ctx.app, userId: USER, sessionId: session.id, afterVersion: held };
      expect((await ctx.service.getSession({ ...key, numRecentEvents: 2 }))!.events.map(textOfEvent)).toEqual([
        'c',
        'd',
      ]);
      expect((await ctx.service.getSession({ ...key, numRecentEvents: 10 }))!.events.map(textOfEvent)).toEqual([
        'b',
        'c',
        'd',
      ]);
      expect((await ctx.service.getSession({ ...key, afterTimestamp: base + 20 }))!.events.map(textOfEvent)).toEqual([
        'c',
        'd',
      ]);
    });

    it('an afterVersion that is not a whole number of at least 0 is refused, naming the value', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      for (const bad of [-1, 1.5, Number.NaN, '2' as unknown as number]) {
        await expect(since(session, bad)).rejects.toThrow(/afterVersion/);
      }
      await expect(since(session, -1)).rejects.toThrow(/-1/);
    });

    it('the events returned are copies: changing them does not change the store', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(session, { content: text('kept'), actions: { stateDelta: { k: 1 } } });
      const got = (await since(session, 0))!;
      (got.events[0]!.content!.parts[0] as { text: string }).text = 'changed';
      got.events[0]!.actions.stateDelta.k = 2;
      const again = (await since(session, 0))!;
      expect(textOfEvent(again.events[0]!)).toBe('kept');
      expect(again.events[0]!.actions.stateDelta).toEqual({ k: 1 });
    });
  });
}
