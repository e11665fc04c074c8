import { describe, expect, it } from 'vitest';
import { SessionExistsError, type Session } from '../../../index.js';
import { sessionCalls, type SessionContractContext } from './context.js';
import { USER, OTHER_USER, event, text, expectPrototypeClean } from './helpers.js';

/** Creating, reading, listing and deleting sessions, and what getSession filters. */
export function sessionCrudTests(ctx: SessionContractContext): void {
  const { get, mustGet, append } = sessionCalls(ctx);

  describe('create, get, list, delete', () => {
    it('createSession returns a new session with an id, empty events, the given state and a version', async () => {
      const before = Date.now();
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { topic: 'tides' } });
      expect(typeof session.id).toBe('string');
      expect(session.id.length).toBeGreaterThan(0);
      expect(session.appName).toBe(ctx.app);
      expect(session.userId).toBe(USER);
      expect(session.events).toEqual([]);
      expect(session.state).toEqual({ topic: 'tides' });
      expect(Number.isInteger(session.version)).toBe(true);
      expect(session.lastUpdateTime).toBeGreaterThanOrEqual(before - 1000);
      expect(session.lastUpdateTime).toBeLessThanOrEqual(Date.now() + 1000);

      const other = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      expect(other.id).not.toBe(session.id);
      expect(other.state).toEqual({});
    });

    it('getSession returns the stored session with its events in order; unknown ids, users and apps give undefined', async () => {
      const created = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { a: 1 } });
      const first = await append(created, { author: 'user', content: { role: 'user', parts: [{ text: 'hello' }] } });
      const second = await append(created, {
        author: 'Helper',
        content: { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'lookup', args: { q: 'x' } } }] },
        actions: { stateDelta: { b: 2 } },
        usage: { inputTokens: 3, outputTokens: 4 },
        model: 'scripted',
      });

      const got = await mustGet(created.id);
      expect(got.id).toBe(created.id);
      expect(got.appName).toBe(ctx.app);
      expect(got.userId).toBe(USER);
      expect(got.state).toEqual({ a: 1, b: 2 });
      expect(got.events.map((e) => e.id)).toEqual([first.id, second.id]);
      expect(got.events[1]).toEqual(second);
      expect(got.version).toBe(created.version);

      expect(await get('no-such-session')).toBeUndefined();
      expect(await get(created.id, OTHER_USER)).toBeUndefined();
      expect(await get(created.id, USER, ctx.otherApp)).toBeUndefined();
    });

    it('stored events keep every Event field, JSON-equal to what was appended', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const full = event({
        invocationId: 'e-inv',
        author: 'Writer',
        branch: 'Fan.Writer',
        path: 'Root/Fan/Writer',
        content: {
          role: 'model',
          parts: [
            { text: 'thinking', thought: true },
            { text: 'done' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
        output: { title: 'Tides', tags: ['sea', 'moon'], nested: { n: 1.5, ok: true, none: null } },
        actions: {
          stateDelta: { draft: { title: 'Tides' } },
          artifactDelta: { 'report.md': 2 },
          escalate: true,
          skipSummarization: true,
          endOfAgent: true,
          agentState: { step: 3 },
          route: { key: 'fast', reason: 'short question' },
        },
        usage: { inputTokens: 10, outputTokens: 20, cachedTokens: 5, thoughtTokens: 7 },
        model: 'scripted-2',
        errorCode: 'SOME_CODE',
        errorMessage: 'something odd',
      });
      await ctx.service.appendEvent({ session, event: structuredClone(full) });
      const got = await mustGet(session.id);
      expect(got.events).toHaveLength(1);
      expect(JSON.parse(JSON.stringify(got.events[0]))).toEqual(JSON.parse(JSON.stringify(full)));
    });

    it('getSession with numRecentEvents returns only the most recent events', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const ids: string[] = [];
      for (let i = 1; i <= 4; i++)
        ids.push((await append(session, { timestamp: 1_000 * i, content: text(`m${i}`) })).id);

      const recent = await mustGetWith({ numRecentEvents: 2 });
      expect(recent.events.map((e) => e.id)).toEqual(ids.slice(2));
      const more = await mustGetWith({ numRecentEvents: 10 });
      expect(more.events.map((e) => e.id)).toEqual(ids);
      // The state is the whole state whatever events are returned.
      expect(recent.state).toEqual(more.state);

      async function mustGetWith(filter: { numRecentEvents: number }): Promise<Session> {
        const got = await ctx.service.getSession({ appName: ctx.app, userId: USER, sessionId: session.id, ...filter });
        expect(got).toBeDefined();
        return got!;
      }
    });

    it('getSession with afterTimestamp returns only events at or after that time', async () => {
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      const ids: string[] = [];
      for (let i = 1; i <= 4; i++)
        ids.push((await append(session, { timestamp: 1_000 * i, content: text(`m${i}`) })).id);

      const after = await ctx.service.getSession({
        appName: ctx.app,
        userId: USER,
        sessionId: session.id,
        afterTimestamp: 2_000,
      });
      expect(after!.events.map((e) => e.id)).toEqual(ids.slice(1));
      const between = await ctx.service.getSession({
        appName: ctx.app,
        userId: USER,
        sessionId: session.id,
        afterTimestamp: 2_500,
      });
      expect(between!.events.map((e) => e.id)).toEqual(ids.slice(2));
      const none = await ctx.service.getSession({
        appName: ctx.app,
        userId: USER,
        sessionId: session.id,
        afterTimestamp: 5_000,
      });
      expect(none!.events).toEqual([]);
      const both = await ctx.service.getSession({
        appName: ctx.app,
        userId: USER,
        sessionId: session.id,
        afterTimestamp: 2_000,
        numRecentEvents: 1,
      });
      expect(both!.events.map((e) => e.id)).toEqual(ids.slice(3));
    });

    it('createSession with an explicit sessionId uses it; a duplicate id is an error and changes nothing', async () => {
      const chosenId = ctx.uid('chosen-id');
      const session = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        sessionId: chosenId,
        state: { n: 1 },
      });
      expect(session.id).toBe(chosenId);
      await append(session, { content: text('kept'), actions: { stateDelta: { n: 2 } } });

      const duplicate = ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        sessionId: chosenId,
        state: { n: 99 },
      });
      await expect(duplicate).rejects.toThrow(SessionExistsError);
      await expect(duplicate).rejects.toThrow(/chosen-id/);

      const got = await mustGet(chosenId);
      expect(got.state).toEqual({ n: 2 });
      expect(got.events).toHaveLength(1);
      expect((await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions).toHaveLength(1);
    });

    it('initial state may hold session, user: and app: keys; temp: keys are never stored', async () => {
      const session = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        state: { topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi', 'temp:scratch': 1 },
      });
      expect(session.state).toMatchObject({ topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi' });

      const got = await mustGet(session.id);
      expect(got.state).toEqual({ topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi' });

      const sameUser = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      expect(sameUser.state).toEqual({ 'user:name': 'Alice', 'app:motd': 'hi' });
      const otherUser = await ctx.service.createSession({ appName: ctx.app, userId: OTHER_USER });
      expect(otherUser.state).toEqual({ 'app:motd': 'hi' });
      const otherApp = await ctx.service.createSession({ appName: ctx.otherApp, userId: USER });
      expect(otherApp.state).toEqual({});
    });

    it('initial state with a prototype-polluting key is rejected and no session is created', async () => {
      for (const key of ['__proto__', 'constructor', 'prototype']) {
        const state = JSON.parse(`{"ok": 1, "${key}": {"polluted": true}}`) as Record<string, unknown>;
        await expect(
          ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: ctx.uid(`bad-${key}`), state }),
          key,
        ).rejects.toThrow(new RegExp(key));
        expect(await get(ctx.uid(`bad-${key}`)), key).toBeUndefined();
      }
      expect((await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions).toEqual([]);
      expectPrototypeClean();
    });

    it("listSessions lists the user's sessions in the app, without events", async () => {
      const a = await ctx.service.createSession({ appName: ctx.app, userId: USER, state: { which: 'a' } });
      const b = await ctx.service.createSession({ appName: ctx.app, userId: USER });
      await append(a, { content: text('hello') });
      await append(b, { content: text('hello') });
      await ctx.service.createSession({ appName: ctx.app, userId: OTHER_USER });
      await ctx.service.createSession({ appName: ctx.otherApp, userId: USER });

      const { sessions } = await ctx.service.listSessions({ appName: ctx.app, userId: USER });
      expect(sessions.map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
      for (const s of sessions) {
        expect(s.appName).toBe(ctx.app);
        expect(s.userId).toBe(USER);
        expect(s.events).toEqual([]);
      }
      expect((await ctx.service.listSessions({ appName: ctx.app, userId: 'nobody' })).sessions).toEqual([]);
    });

    it('deleteSession removes the session, its events and its state, but not app: or user: state', async () => {
      const doomedId = ctx.uid('doomed');
      const session = await ctx.service.createSession({
        appName: ctx.app,
        userId: USER,
        sessionId: doomedId,
        state: { mine: 1 },
      });
      await append(session, {
        content: text('hello'),
        actions: { stateDelta: { mine: 2, 'user:lang': 'fr', 'app:flag': true } },
      });
      const keep = await ctx.service.createSession({ appName: ctx.app, userId: USER });

      await ctx.service.deleteSession({ appName: ctx.app, userId: USER, sessionId: doomedId });

      expect(await get(doomedId)).toBeUndefined();
      expect((await ctx.service.listSessions({ appName: ctx.app, userId: USER })).sessions.map((s) => s.id)).toEqual([
        keep.id,
      ]);
      expect((await mustGet(keep.id)).state).toEqual({ 'user:lang': 'fr', 'app:flag': true });
      expect((await ctx.service.createSession({ appName: ctx.app, userId: OTHER_USER })).state).toEqual({
        'app:flag': true,
      });

      // A new session under the same id starts empty: no old events, no old session keys.
      const again = await ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: doomedId });
      expect(again.events).toEqual([]);
      expect(again.state).toEqual({ 'user:lang': 'fr', 'app:flag': true });
      expect((await mustGet(doomedId)).events).toEqual([]);
    });

    it("deleteSession of another user's or app's session id leaves it alone", async () => {
      const sharedId = ctx.uid('shared-name');
      const session = await ctx.service.createSession({ appName: ctx.app, userId: USER, sessionId: sharedId });
      await ctx.service.deleteSession({ appName: ctx.app, userId: OTHER_USER, sessionId: sharedId });
      await ctx.service.deleteSession({ appName: ctx.otherApp, userId: USER, sessionId: sharedId });
      expect((await mustGet(session.id)).id).toBe(sharedId);
    });
  });
}
