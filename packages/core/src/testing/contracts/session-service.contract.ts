/**
 * The contract every {@link SessionService} implementation passes (SPEC §3). One suite, run by the
 * in-memory store in core and by the SQLite and PostgreSQL stores, as hono's routers share
 * `common.case.test.ts`.
 *
 * @example
 * // packages/sqlite/test/sqlite-session-service.test.ts
 * sessionServiceContract('SqliteSessionService', async () => {
 *   const path = join(await mkdtemp(join(tmpdir(), 'troupe-')), 'sessions.db');
 *   const service = new SqliteSessionService({ path });
 *   return { service, path, close: () => service.close() };
 * }, {
 *   // Stores with shared storage must pass this: the "two instances" part runs only when it is given.
 *   openSecond: async ({ path }) => {
 *     const service = new SqliteSessionService({ path });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidStateKeyError,
  LeaseLostError,
  SessionExistsError,
  SessionNotFoundError,
  StaleSessionError,
  createEvent,
  type Event,
  type EventInit,
  type Session,
  type SessionService,
} from '../../index.js';
import { supportsLeases, type LeasingSessionService } from '../../stores/index.js';

/** A service under test and how to dispose of it. Extra fields (a file path, a URL) reach `openSecond`. */
export interface SessionServiceFixture {
  service: SessionService;
  /** Closes connections and removes the storage. Called after every test. */
  close?: () => Promise<void>;
}

/** Options of {@link sessionServiceContract}. */
export interface SessionServiceContractOptions<F extends SessionServiceFixture> {
  /**
   * Opens a second service instance over the same storage as `first` (another connection, as a
   * second process would). Every store with shared storage passes it; only then do the
   * "two service instances on the same storage" tests run.
   */
  openSecond?: (first: F) => Promise<SessionServiceFixture>;
  /**
   * Whether the store implements session leases (`leaseSession`, `renewLease`, `releaseLease`).
   * The three Troupe stores do; a store that leaves them out passes `false`.
   * @default true
   */
  leases?: boolean;
}

const USER = 'alice';
const OTHER_USER = 'bob';

/** Registers the SessionService contract suite for one implementation. */
export function sessionServiceContract<F extends SessionServiceFixture>(
  name: string,
  factory: () => Promise<F>,
  options: SessionServiceContractOptions<F> = {},
): void {
  describe(`SessionService contract: ${name}`, () => {
    let fixture: F;
    let service: SessionService;
    // Fresh app names and session ids per test, so stores whose storage outlives one test
    // (a shared PostgreSQL database) see no state from other tests.
    let APP: string;
    let OTHER_APP: string;
    let uid: (label: string) => string;
    const extraClosers: (() => Promise<void>)[] = [];

    beforeEach(async () => {
      const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      APP = `contract-app-${run}`;
      OTHER_APP = `contract-other-app-${run}`;
      uid = (label) => `${label}-${run}`;
      fixture = await factory();
      service = fixture.service;
    });

    afterEach(async () => {
      for (const close of extraClosers.splice(0).reverse()) await close();
      await fixture.close?.();
    });

    const get = (sessionId: string, userId = USER, appName = APP): Promise<Session | undefined> =>
      service.getSession({ appName, userId, sessionId });
    const mustGet = async (
      sessionId: string,
      userId = USER,
      appName = APP,
      from: SessionService = service,
    ): Promise<Session> => {
      const session = await from.getSession({ appName, userId, sessionId });
      expect(session, `session '${sessionId}' should exist`).toBeDefined();
      return session!;
    };
    const append = (session: Session, init: EventInit = {}, from: SessionService = service): Promise<Event> =>
      from.appendEvent({ session, event: event(init) });

    describe('create, get, list, delete', () => {
      it('createSession returns a new session with an id, empty events, the given state and a version', async () => {
        const before = Date.now();
        const session = await service.createSession({ appName: APP, userId: USER, state: { topic: 'tides' } });
        expect(typeof session.id).toBe('string');
        expect(session.id.length).toBeGreaterThan(0);
        expect(session.appName).toBe(APP);
        expect(session.userId).toBe(USER);
        expect(session.events).toEqual([]);
        expect(session.state).toEqual({ topic: 'tides' });
        expect(Number.isInteger(session.version)).toBe(true);
        expect(session.lastUpdateTime).toBeGreaterThanOrEqual(before - 1000);
        expect(session.lastUpdateTime).toBeLessThanOrEqual(Date.now() + 1000);

        const other = await service.createSession({ appName: APP, userId: USER });
        expect(other.id).not.toBe(session.id);
        expect(other.state).toEqual({});
      });

      it('getSession returns the stored session with its events in order; unknown ids, users and apps give undefined', async () => {
        const created = await service.createSession({ appName: APP, userId: USER, state: { a: 1 } });
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
        expect(got.appName).toBe(APP);
        expect(got.userId).toBe(USER);
        expect(got.state).toEqual({ a: 1, b: 2 });
        expect(got.events.map((e) => e.id)).toEqual([first.id, second.id]);
        expect(got.events[1]).toEqual(second);
        expect(got.version).toBe(created.version);

        expect(await get('no-such-session')).toBeUndefined();
        expect(await get(created.id, OTHER_USER)).toBeUndefined();
        expect(await get(created.id, USER, OTHER_APP)).toBeUndefined();
      });

      it('stored events keep every Event field, JSON-equal to what was appended', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
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
        await service.appendEvent({ session, event: structuredClone(full) });
        const got = await mustGet(session.id);
        expect(got.events).toHaveLength(1);
        expect(JSON.parse(JSON.stringify(got.events[0]))).toEqual(JSON.parse(JSON.stringify(full)));
      });

      it('getSession with numRecentEvents returns only the most recent events', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
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
          const got = await service.getSession({ appName: APP, userId: USER, sessionId: session.id, ...filter });
          expect(got).toBeDefined();
          return got!;
        }
      });

      it('getSession with afterTimestamp returns only events at or after that time', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const ids: string[] = [];
        for (let i = 1; i <= 4; i++)
          ids.push((await append(session, { timestamp: 1_000 * i, content: text(`m${i}`) })).id);

        const after = await service.getSession({
          appName: APP,
          userId: USER,
          sessionId: session.id,
          afterTimestamp: 2_000,
        });
        expect(after!.events.map((e) => e.id)).toEqual(ids.slice(1));
        const between = await service.getSession({
          appName: APP,
          userId: USER,
          sessionId: session.id,
          afterTimestamp: 2_500,
        });
        expect(between!.events.map((e) => e.id)).toEqual(ids.slice(2));
        const none = await service.getSession({
          appName: APP,
          userId: USER,
          sessionId: session.id,
          afterTimestamp: 5_000,
        });
        expect(none!.events).toEqual([]);
        const both = await service.getSession({
          appName: APP,
          userId: USER,
          sessionId: session.id,
          afterTimestamp: 2_000,
          numRecentEvents: 1,
        });
        expect(both!.events.map((e) => e.id)).toEqual(ids.slice(3));
      });

      it('createSession with an explicit sessionId uses it; a duplicate id is an error and changes nothing', async () => {
        const chosenId = uid('chosen-id');
        const session = await service.createSession({
          appName: APP,
          userId: USER,
          sessionId: chosenId,
          state: { n: 1 },
        });
        expect(session.id).toBe(chosenId);
        await append(session, { content: text('kept'), actions: { stateDelta: { n: 2 } } });

        const duplicate = service.createSession({ appName: APP, userId: USER, sessionId: chosenId, state: { n: 99 } });
        await expect(duplicate).rejects.toThrow(SessionExistsError);
        await expect(duplicate).rejects.toThrow(/chosen-id/);

        const got = await mustGet(chosenId);
        expect(got.state).toEqual({ n: 2 });
        expect(got.events).toHaveLength(1);
        expect((await service.listSessions({ appName: APP, userId: USER })).sessions).toHaveLength(1);
      });

      it('initial state may hold session, user: and app: keys; temp: keys are never stored', async () => {
        const session = await service.createSession({
          appName: APP,
          userId: USER,
          state: { topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi', 'temp:scratch': 1 },
        });
        expect(session.state).toMatchObject({ topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi' });

        const got = await mustGet(session.id);
        expect(got.state).toEqual({ topic: 'tides', 'user:name': 'Alice', 'app:motd': 'hi' });

        const sameUser = await service.createSession({ appName: APP, userId: USER });
        expect(sameUser.state).toEqual({ 'user:name': 'Alice', 'app:motd': 'hi' });
        const otherUser = await service.createSession({ appName: APP, userId: OTHER_USER });
        expect(otherUser.state).toEqual({ 'app:motd': 'hi' });
        const otherApp = await service.createSession({ appName: OTHER_APP, userId: USER });
        expect(otherApp.state).toEqual({});
      });

      it('initial state with a prototype-polluting key is rejected and no session is created', async () => {
        for (const key of ['__proto__', 'constructor', 'prototype']) {
          const state = JSON.parse(`{"ok": 1, "${key}": {"polluted": true}}`) as Record<string, unknown>;
          await expect(
            service.createSession({ appName: APP, userId: USER, sessionId: uid(`bad-${key}`), state }),
            key,
          ).rejects.toThrow(new RegExp(key));
          expect(await get(uid(`bad-${key}`)), key).toBeUndefined();
        }
        expect((await service.listSessions({ appName: APP, userId: USER })).sessions).toEqual([]);
        expectPrototypeClean();
      });

      it("listSessions lists the user's sessions in the app, without events", async () => {
        const a = await service.createSession({ appName: APP, userId: USER, state: { which: 'a' } });
        const b = await service.createSession({ appName: APP, userId: USER });
        await append(a, { content: text('hello') });
        await append(b, { content: text('hello') });
        await service.createSession({ appName: APP, userId: OTHER_USER });
        await service.createSession({ appName: OTHER_APP, userId: USER });

        const { sessions } = await service.listSessions({ appName: APP, userId: USER });
        expect(sessions.map((s) => s.id).sort()).toEqual([a.id, b.id].sort());
        for (const s of sessions) {
          expect(s.appName).toBe(APP);
          expect(s.userId).toBe(USER);
          expect(s.events).toEqual([]);
        }
        expect((await service.listSessions({ appName: APP, userId: 'nobody' })).sessions).toEqual([]);
      });

      it('deleteSession removes the session, its events and its state, but not app: or user: state', async () => {
        const doomedId = uid('doomed');
        const session = await service.createSession({
          appName: APP,
          userId: USER,
          sessionId: doomedId,
          state: { mine: 1 },
        });
        await append(session, {
          content: text('hello'),
          actions: { stateDelta: { mine: 2, 'user:lang': 'fr', 'app:flag': true } },
        });
        const keep = await service.createSession({ appName: APP, userId: USER });

        await service.deleteSession({ appName: APP, userId: USER, sessionId: doomedId });

        expect(await get(doomedId)).toBeUndefined();
        expect((await service.listSessions({ appName: APP, userId: USER })).sessions.map((s) => s.id)).toEqual([
          keep.id,
        ]);
        expect((await mustGet(keep.id)).state).toEqual({ 'user:lang': 'fr', 'app:flag': true });
        expect((await service.createSession({ appName: APP, userId: OTHER_USER })).state).toEqual({ 'app:flag': true });

        // A new session under the same id starts empty: no old events, no old session keys.
        const again = await service.createSession({ appName: APP, userId: USER, sessionId: doomedId });
        expect(again.events).toEqual([]);
        expect(again.state).toEqual({ 'user:lang': 'fr', 'app:flag': true });
        expect((await mustGet(doomedId)).events).toEqual([]);
      });

      it("deleteSession of another user's or app's session id leaves it alone", async () => {
        const sharedId = uid('shared-name');
        const session = await service.createSession({ appName: APP, userId: USER, sessionId: sharedId });
        await service.deleteSession({ appName: APP, userId: OTHER_USER, sessionId: sharedId });
        await service.deleteSession({ appName: OTHER_APP, userId: USER, sessionId: sharedId });
        expect((await mustGet(session.id)).id).toBe(sharedId);
      });
    });

    describe('state scopes', () => {
      it('unprefixed keys belong to one session', async () => {
        const a = await service.createSession({ appName: APP, userId: USER });
        const b = await service.createSession({ appName: APP, userId: USER });
        await append(a, { actions: { stateDelta: { topic: 'tides' } } });
        expect((await mustGet(a.id)).state).toEqual({ topic: 'tides' });
        expect((await mustGet(b.id)).state).toEqual({});
      });

      it("user: keys are shared by all of a user's sessions in the app, not across users or apps", async () => {
        const before = await service.createSession({ appName: APP, userId: USER });
        const writer = await service.createSession({ appName: APP, userId: USER });
        const otherUser = await service.createSession({ appName: APP, userId: OTHER_USER });
        const otherApp = await service.createSession({ appName: OTHER_APP, userId: USER });

        await append(writer, { actions: { stateDelta: { 'user:lang': 'fr' } } });
        expect(writer.state['user:lang']).toBe('fr');

        expect((await mustGet(before.id)).state).toEqual({ 'user:lang': 'fr' });
        expect((await service.createSession({ appName: APP, userId: USER })).state).toEqual({ 'user:lang': 'fr' });
        expect((await mustGet(otherUser.id, OTHER_USER)).state).toEqual({});
        expect((await mustGet(otherApp.id, USER, OTHER_APP)).state).toEqual({});

        // A later write from another session of the user wins everywhere.
        const fresh = await mustGet(before.id);
        await append(fresh, { actions: { stateDelta: { 'user:lang': 'de' } } });
        expect((await mustGet(writer.id)).state['user:lang']).toBe('de');
      });

      it('app: keys are shared by every session of the app, not by other apps', async () => {
        const alice = await service.createSession({ appName: APP, userId: USER });
        const bob = await service.createSession({ appName: APP, userId: OTHER_USER });
        const otherApp = await service.createSession({ appName: OTHER_APP, userId: USER });

        await append(alice, { actions: { stateDelta: { 'app:motd': 'maintenance at 5' } } });

        expect((await mustGet(bob.id, OTHER_USER)).state).toEqual({ 'app:motd': 'maintenance at 5' });
        expect((await service.createSession({ appName: APP, userId: 'carol' })).state).toEqual({
          'app:motd': 'maintenance at 5',
        });
        expect((await mustGet(otherApp.id, USER, OTHER_APP)).state).toEqual({});
      });

      it('temp: keys apply to the live session during appendEvent but are never stored', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const returned = await append(session, { actions: { stateDelta: { 'temp:scratch': 'x', kept: 1 } } });

        expect(session.state['temp:scratch']).toBe('x');
        expect(session.state.kept).toBe(1);
        expect(returned.actions.stateDelta).not.toHaveProperty('temp:scratch');

        const got = await mustGet(session.id);
        expect(got.state).toEqual({ kept: 1 });
        expect(got.events).toHaveLength(1);
        expect(got.events[0]!.actions.stateDelta).toEqual({ kept: 1 });
        // The live copy keeps working with temp: keys in its state.
        await append(session, { actions: { stateDelta: { more: 2 } } });
        expect((await mustGet(session.id)).state).toEqual({ kept: 1, more: 2 });
      });
    });

    describe('appendEvent', () => {
      it('stores the event and its state delta together and updates the given session in place', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
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
        const session = await service.createSession({ appName: APP, userId: USER });
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
          const session = await service.createSession({ appName: APP, userId: USER, state: { a: 1 } });
          await append(session, { content: text('before') });
          const version = session.version;
          const delta = JSON.parse(`{"ok": 2, "${key}": {"polluted": true}}`) as Record<string, unknown>;
          const bad = event({ content: text('bad'), actions: { stateDelta: delta } });

          await expect(service.appendEvent({ session, event: bad })).rejects.toThrow(new RegExp(key));

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
        const created = await service.createSession({ appName: APP, userId: USER });
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
        const created = await service.createSession({ appName: APP, userId: USER });
        const a = await mustGet(created.id);
        const b = await mustGet(created.id);
        const results = await Promise.allSettled([
          append(a, { content: text('a') }),
          append(b, { content: text('b') }),
        ]);

        const fulfilled = results.filter((r) => r.status === 'fulfilled');
        const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(fulfilled).toHaveLength(1);
        expect(rejected).toHaveLength(1);
        expect(rejected[0]!.reason).toBeInstanceOf(StaleSessionError);
        expect((await mustGet(created.id)).events).toHaveLength(1);
      });

      it('an event appended twice (same id) is stored once; the second call returns the stored event', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const e = event({ content: text('once'), actions: { stateDelta: { n: 1 } } });
        const first = await service.appendEvent({ session, event: e });
        const version = session.version;

        const again = await service.appendEvent({
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
        const session = await service.createSession({ appName: APP, userId: USER });
        const stored: Event[] = [];
        for (let i = 0; i < 40; i++)
          stored.push(await service.appendEvent({ session, event: event({ content: text(`event ${i}`) }) }));
        const version = session.version;
        for (const i of [0, 15, 16, 17, 39]) {
          const again = await service.appendEvent({ session, event: structuredClone(stored[i]!) });
          expect(textOfEvent(again)).toBe(`event ${i}`);
        }
        const got = await mustGet(session.id);
        expect(got.events).toHaveLength(40);
        expect(got.version).toBe(version);
        const fresh = await service.appendEvent({ session, event: event({ content: text('event 40') }) });
        expect(textOfEvent(fresh)).toBe('event 40');
        expect((await mustGet(session.id)).events).toHaveLength(41);
      });

      it('an event already stored, appended again through a stale copy, returns the stored event instead of failing', async () => {
        const created = await service.createSession({ appName: APP, userId: USER });
        const fresh = await mustGet(created.id);
        const stale = await mustGet(created.id);
        const e = event({ content: text('retry me'), actions: { stateDelta: { n: 1 } } });
        const first = await service.appendEvent({ session: fresh, event: e });
        await append(fresh, { content: text('later') });

        const retried = await service.appendEvent({ session: stale, event: structuredClone(e) });
        expect(retried).toEqual(first);
        const got = await mustGet(created.id);
        expect(got.events.map(textOfEvent)).toEqual(['retry me', 'later']);
        expect(got.version).toBe(fresh.version);
      });

      it('partial events are returned but never stored', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const version = session.version;
        const chunk = event({ partial: true, content: text('Hel') });
        const returned = await service.appendEvent({ session, event: chunk });
        expect(returned.id).toBe(chunk.id);

        const got = await mustGet(session.id);
        expect(got.events).toEqual([]);
        expect(got.version).toBe(version);
        // Not stored, so the same id can still be stored as a whole event.
        await service.appendEvent({ session, event: { ...chunk, partial: false, content: text('Hello') } });
        expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['Hello']);
      });

      it('lastUpdateTime advances with appends', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const created = session.lastUpdateTime;
        await sleep(15);
        await append(session, { content: text('later') });
        expect(session.lastUpdateTime).toBeGreaterThan(created);
        const got = await mustGet(session.id);
        expect(got.lastUpdateTime).toBeGreaterThan(created);
        const listed = (await service.listSessions({ appName: APP, userId: USER })).sessions.find(
          (s) => s.id === session.id,
        );
        expect(listed!.lastUpdateTime).toBe(got.lastUpdateTime);
      });

      it('appending to a session that does not exist is an error', async () => {
        const goneId = uid('gone');
        const session = await service.createSession({ appName: APP, userId: USER, sessionId: goneId });
        await service.deleteSession({ appName: APP, userId: USER, sessionId: goneId });
        await expect(append(session, { content: text('lost') })).rejects.toThrow(/gone/);
        expect(await get(goneId)).toBeUndefined();
      });
    });

    describe('incremental reads (afterVersion)', () => {
      const since = (
        session: Session,
        afterVersion: number,
        from: SessionService = service,
        userId = USER,
      ): Promise<Session | undefined> => from.getSession({ appName: APP, userId, sessionId: session.id, afterVersion });

      it('returns only the events stored after that version, with the current state, version and lastUpdateTime', async () => {
        const session = await service.createSession({ appName: APP, userId: USER, state: { a: 1 } });
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
        const session = await service.createSession({ appName: APP, userId: USER });
        for (let i = 0; i < 5; i++)
          await append(session, { content: text(`m${i}`), actions: { stateDelta: { n: i } } });
        const copy = await mustGet(session.id);
        expect(copy.increment).toBeUndefined();
        for (let i = 5; i < 8; i++)
          await append(session, { content: text(`m${i}`), actions: { stateDelta: { n: i } } });
        const got = (await since(copy, copy.version))!;
        expect(got.increment!.baseEventId).toBe(copy.events.at(-1)!.id);
        expect([...copy.events, ...got.events]).toEqual((await mustGet(session.id)).events);
        // From version 0: every event, and no event before it.
        const all = (await since(session, 0))!;
        expect(all.events.map(textOfEvent)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
        expect(all.increment).toEqual({ afterVersion: 0, baseEventId: undefined });
      });

      it('at the current version: no events, the same version', async () => {
        const session = await service.createSession({ appName: APP, userId: USER, state: { a: 1 } });
        const last = await append(session, { content: text('only') });
        const got = (await since(session, session.version))!;
        expect(got.events).toEqual([]);
        expect(got.version).toBe(session.version);
        expect(got.state).toEqual({ a: 1 });
        expect(got.increment).toEqual({ afterVersion: session.version, baseEventId: last.id });
      });

      it('a version ahead of the store: no events, and the lower version the store holds', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        const last = await append(session, { content: text('only') });
        const got = (await since(session, session.version + 5))!;
        expect(got.events).toEqual([]);
        expect(got.version).toBe(session.version);
        expect(got.version).toBeLessThan(got.increment!.afterVersion);
        expect(got.increment!.baseEventId).toBe(last.id);
      });

      it('a session deleted and created again under the same id does not continue the old copy', async () => {
        const id = uid('reborn');
        const old = await service.createSession({ appName: APP, userId: USER, sessionId: id });
        await append(old, { content: text('old 1') });
        const oldLast = await append(old, { content: text('old 2') });
        await service.deleteSession({ appName: APP, userId: USER, sessionId: id });
        const reborn = await service.createSession({ appName: APP, userId: USER, sessionId: id });
        for (let i = 0; i < 3; i++) await append(reborn, { content: text(`new ${i}`) });

        const got = (await since(old, old.version))!;
        // Versions alone would pass; the event at that version tells the copies apart.
        expect(got.version).toBeGreaterThanOrEqual(old.version);
        expect(got.increment!.baseEventId).toBeDefined();
        expect(got.increment!.baseEventId).not.toBe(oldLast.id);
        expect(got.events.map(textOfEvent)).toEqual(['new 2']);
        expect(await since(old, 0, service, OTHER_USER)).toBeUndefined();
      });

      it("brings user: and app: keys written by another of the user's sessions; temp: keys are never there", async () => {
        const mine = await service.createSession({ appName: APP, userId: USER, state: { own: 1 } });
        await append(mine, { content: text('hello'), actions: { stateDelta: { 'temp:scratch': 1, own: 2 } } });
        const held = session0(mine);
        const elsewhere = await service.createSession({ appName: APP, userId: USER });
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
        const session = await service.createSession({ appName: APP, userId: USER });
        const base = Date.now();
        await append(session, { content: text('a'), timestamp: base });
        const held = session.version;
        await append(session, { content: text('b'), timestamp: base + 10 });
        await append(session, { content: text('c'), timestamp: base + 20 });
        await append(session, { content: text('d'), timestamp: base + 30 });
        const key = { appName: APP, userId: USER, sessionId: session.id, afterVersion: held };
        expect((await service.getSession({ ...key, numRecentEvents: 2 }))!.events.map(textOfEvent)).toEqual(['c', 'd']);
        expect((await service.getSession({ ...key, numRecentEvents: 10 }))!.events.map(textOfEvent)).toEqual([
          'b',
          'c',
          'd',
        ]);
        expect((await service.getSession({ ...key, afterTimestamp: base + 20 }))!.events.map(textOfEvent)).toEqual([
          'c',
          'd',
        ]);
      });

      it('an afterVersion that is not a whole number of at least 0 is refused, naming the value', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        for (const bad of [-1, 1.5, Number.NaN, '2' as unknown as number]) {
          await expect(since(session, bad)).rejects.toThrow(/afterVersion/);
        }
        await expect(since(session, -1)).rejects.toThrow(/-1/);
      });

      it('the events returned are copies: changing them does not change the store', async () => {
        const session = await service.createSession({ appName: APP, userId: USER });
        await append(session, { content: text('kept'), actions: { stateDelta: { k: 1 } } });
        const got = (await since(session, 0))!;
        (got.events[0]!.content!.parts[0] as { text: string }).text = 'changed';
        got.events[0]!.actions.stateDelta.k = 2;
        const again = (await since(session, 0))!;
        expect(textOfEvent(again.events[0]!)).toBe('kept');
        expect(again.events[0]!.actions.stateDelta).toEqual({ k: 1 });
      });
    });

    describe('returned sessions are copies', () => {
      it('changing the state or the events list of a returned session does not change the store', async () => {
        const created = await service.createSession({
          appName: APP,
          userId: USER,
          state: { a: 1, 'user:u': 1, 'app:x': 1 },
        });
        await append(created, { content: text('one') });

        const got = await mustGet(created.id);
        got.state.a = 'changed';
        got.state['user:u'] = 'changed';
        delete got.state['app:x'];
        got.state.added = true;
        got.events.push(event({ content: text('injected') }));
        got.events.shift();
        created.state.a = 'changed too';

        const listed = (await service.listSessions({ appName: APP, userId: USER })).sessions[0]!;
        listed.state.a = 'changed by list';
        listed.events.push(event({ content: text('injected by list') }));

        const again = await mustGet(created.id);
        expect(again.state).toEqual({ a: 1, 'user:u': 1, 'app:x': 1 });
        expect(again.events.map(textOfEvent)).toEqual(['one']);
        expect((await service.createSession({ appName: APP, userId: USER })).state).toEqual({
          'user:u': 1,
          'app:x': 1,
        });
      });

      it('changing nested state values of a returned session does not change the store', async () => {
        const created = await service.createSession({
          appName: APP,
          userId: USER,
          state: { doc: { tags: ['a'] }, 'user:prefs': { theme: 'dark' } },
        });
        await append(created, { actions: { stateDelta: { list: [1] } } });

        const got = await mustGet(created.id);
        (got.state.doc as { tags: string[] }).tags.push('b');
        (got.state.list as number[]).push(2);
        (got.state['user:prefs'] as { theme: string }).theme = 'light';
        (created.state.list as number[]).push(3);

        expect((await mustGet(created.id)).state).toEqual({
          doc: { tags: ['a'] },
          list: [1],
          'user:prefs': { theme: 'dark' },
        });
      });

      it('changing the event objects of a returned session does not change the store', async () => {
        const created = await service.createSession({ appName: APP, userId: USER });
        await append(created, { author: 'Writer', content: text('original'), actions: { stateDelta: { list: [1] } } });

        const got = await mustGet(created.id);
        got.events[0]!.author = 'Changed';
        got.events[0]!.content!.parts[0] = { text: 'changed in copy' };
        got.events[0]!.actions.stateDelta.list = 'changed';

        const again = await mustGet(created.id);
        expect(again.events[0]!.author).toBe('Writer');
        expect(textOfEvent(again.events[0]!)).toBe('original');
        expect(again.events[0]!.actions.stateDelta).toEqual({ list: [1] });
      });

      it('changing an event after appending it, or the event appendEvent returned, does not change the store', async () => {
        const created = await service.createSession({ appName: APP, userId: USER });
        const appended = event({ author: 'Writer', content: text('original'), actions: { stateDelta: { list: [1] } } });
        const returned = await service.appendEvent({ session: created, event: appended });

        appended.content!.parts[0] = { text: 'changed after append' };
        (appended.actions.stateDelta.list as number[]).push(99);
        returned.author = 'Changed';

        const again = await mustGet(created.id);
        expect(again.state).toEqual({ list: [1] });
        expect(again.events[0]!.author).toBe('Writer');
        expect(textOfEvent(again.events[0]!)).toBe('original');
        expect(again.events[0]!.actions.stateDelta).toEqual({ list: [1] });
      });
    });

    it('prototype pollution attempts never modify Object.prototype', async () => {
      const session = await service.createSession({ appName: APP, userId: USER });
      const attempts = [
        '{"__proto__": {"polluted": "yes"}}',
        '{"constructor": {"prototype": {"polluted": "yes"}}}',
        '{"prototype": {"polluted": "yes"}}',
        '{"user:__proto__": {"polluted": "yes"}}',
        '{"app:constructor": {"prototype": {"polluted": "yes"}}}',
        '{"temp:__proto__": {"polluted": "yes"}}',
      ];
      for (const json of attempts) {
        const stateDelta = JSON.parse(json) as Record<string, unknown>;
        await service.appendEvent({ session, event: event({ actions: { stateDelta } }) }).catch(() => undefined);
        await service
          .createSession({ appName: APP, userId: USER, state: JSON.parse(json) as Record<string, unknown> })
          .catch(() => undefined);
        expectPrototypeClean();
      }
      // Nested forbidden keys are refused too (at any depth, naming the path), and nothing is stored.
      const nested = JSON.parse('{"safe": {"list": [{"__proto__": {"polluted": "yes"}}]}}') as Record<string, unknown>;
      await expect(
        service.appendEvent({ session: await mustGet(session.id), event: event({ actions: { stateDelta: nested } }) }),
      ).rejects.toThrow("State key 'safe' holds the key '__proto__' at safe.list[0].__proto__");
      await expect(service.createSession({ appName: APP, userId: USER, state: nested })).rejects.toThrow(
        InvalidStateKeyError,
      );
      const got = await mustGet(session.id);
      expect(got.state).not.toHaveProperty('safe');
      for (const s of [got, ...(await service.listSessions({ appName: APP, userId: USER })).sessions]) {
        expect(Object.getPrototypeOf(s.state) === Object.prototype || Object.getPrototypeOf(s.state) === null).toBe(
          true,
        );
        expect((s.state as { polluted?: unknown }).polluted).toBeUndefined();
      }
      expectPrototypeClean();
    });

    describe('text a store cannot hold as is', () => {
      // NUL bytes and lone UTF-16 surrogates are valid in JavaScript strings; PostgreSQL's jsonb
      // refuses both. Every store round-trips them the same way (SPEC §12).
      const awkward = [
        'nul \u0000 inside',
        'lone high \ud800 surrogate',
        'lone low \udc00',
        'pair \ud83c\udf89 ok',
        '\u0000',
      ];

      it('NUL bytes and lone surrogates in content, state, keys and output round-trip exactly', async () => {
        const session = await service.createSession({
          appName: APP,
          userId: USER,
          state: { initial: awkward[0], 'user:u': awkward[1] },
        });
        const e = await append(session, {
          content: { role: 'model', parts: awkward.map((t) => ({ text: t })) },
          output: { list: awkward, 'key \u0000 with nul': awkward[2] },
          actions: { stateDelta: { s: awkward[1], 'k\ud800': awkward[3], 'app:a': awkward[4] } },
        });
        const got = await mustGet(session.id);
        expect(got.events[0]).toEqual(e);
        expect(got.events[0]!.content!.parts).toEqual(awkward.map((t) => ({ text: t })));
        expect(got.state).toEqual({
          initial: awkward[0],
          'user:u': awkward[1],
          s: awkward[1],
          'k\ud800': awkward[3],
          'app:a': awkward[4],
        });
        const listed = (await service.listSessions({ appName: APP, userId: USER })).sessions.find(
          (x) => x.id === session.id,
        );
        expect(listed?.state.s).toBe(awkward[1]);
      });
    });

    if (options.leases !== false) {
      describe('session leases', () => {
        let leasing: LeasingSessionService;
        const key = (session: Session) => ({ appName: APP, userId: USER, sessionId: session.id });

        beforeEach(() => {
          expect(supportsLeases(service), 'the store should implement leaseSession, renewLease and releaseLease').toBe(
            true,
          );
          leasing = service as LeasingSessionService;
        });

        it('one owner at a time: a second owner gets undefined until the lease is released, then a higher epoch', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 30_000 });
          expect(a).toMatchObject({ ...key(session), owner: 'a' });
          expect(a!.expiresAt).toBeGreaterThan(Date.now() + 20_000);
          expect(await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 })).toBeUndefined();
          await leasing.releaseLease(a!);
          const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
          expect(b?.owner).toBe('b');
          expect(b!.epoch).toBeGreaterThan(a!.epoch);
        });

        it('leases of different sessions are independent; leasing a missing session throws SessionNotFoundError', async () => {
          const one = await service.createSession({ appName: APP, userId: USER });
          const two = await service.createSession({ appName: APP, userId: USER });
          expect(await leasing.leaseSession({ ...key(one), owner: 'a', ttlMs: 30_000 })).toBeDefined();
          expect(await leasing.leaseSession({ ...key(two), owner: 'b', ttlMs: 30_000 })).toBeDefined();
          await expect(
            leasing.leaseSession({ appName: APP, userId: USER, sessionId: uid('missing'), owner: 'a', ttlMs: 1000 }),
          ).rejects.toBeInstanceOf(SessionNotFoundError);
        });

        it('an expired lease is taken over by another owner with a higher epoch', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
          await sleep(120);
          const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
          expect(b?.owner).toBe('b');
          expect(b!.epoch).toBeGreaterThan(a!.epoch);
        });

        it('appending with a lease that was taken over fails with LeaseLostError and stores nothing', async () => {
          const session = await service.createSession({ appName: APP, userId: USER, state: { n: 0 } });
          const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
          await service.appendEvent({
            session,
            event: event({ content: text('by a'), actions: { stateDelta: { n: 1 } } }),
            lease: a,
          });
          await sleep(120);
          const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
          expect(b).toBeDefined();

          const late = event({ content: text('late by a'), actions: { stateDelta: { n: 99 } } });
          await expect(service.appendEvent({ session, event: late, lease: a })).rejects.toBeInstanceOf(LeaseLostError);
          const got = await mustGet(session.id);
          expect(got.events.map(textOfEvent)).toEqual(['by a']);
          expect(got.state).toEqual({ n: 1 });

          await service.appendEvent({ session: got, event: event({ content: text('by b') }), lease: b });
          expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['by a', 'by b']);
        });

        it('an expired lease nobody took over still appends and renews', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
          await sleep(120);
          await service.appendEvent({ session, event: event({ content: text('still a') }), lease: a });
          const renewed = await leasing.renewLease(a!, 30_000);
          expect(renewed.epoch).toBe(a!.epoch);
          expect(renewed.expiresAt).toBeGreaterThan(Date.now() + 20_000);
          expect(await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 })).toBeUndefined();
        });

        it('renewing a lease that was taken over throws LeaseLostError; releasing it does not free the new owner', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          const a = await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 50 });
          await sleep(120);
          const b = await leasing.leaseSession({ ...key(session), owner: 'b', ttlMs: 30_000 });
          await expect(leasing.renewLease(a!, 30_000)).rejects.toBeInstanceOf(LeaseLostError);
          await leasing.releaseLease(a!);
          expect(await leasing.leaseSession({ ...key(session), owner: 'c', ttlMs: 30_000 })).toBeUndefined();
          await leasing.releaseLease(b!);
          expect(await leasing.leaseSession({ ...key(session), owner: 'c', ttlMs: 30_000 })).toBeDefined();
        });

        it('appends without a lease are not affected by one (version checks still apply)', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          await leasing.leaseSession({ ...key(session), owner: 'a', ttlMs: 30_000 });
          await append(session, { content: text('plain') });
          expect((await mustGet(session.id)).events.map(textOfEvent)).toEqual(['plain']);
        });
      });
    }

    if (options.openSecond) {
      const openSecond = options.openSecond;
      describe('two service instances on the same storage', () => {
        let other: SessionService;

        beforeEach(async () => {
          const second = await openSecond(fixture);
          other = second.service;
          if (second.close) extraClosers.push(second.close);
        });

        it('a session created through one instance is read, listed and deleted through the other', async () => {
          const session = await service.createSession({
            appName: APP,
            userId: USER,
            state: { a: 1, 'user:u': 2, 'app:x': 3 },
          });
          const e = await append(session, { content: text('hello'), actions: { stateDelta: { b: 2 } } });

          const seen = await mustGet(session.id, USER, APP, other);
          expect(seen.state).toEqual({ a: 1, b: 2, 'user:u': 2, 'app:x': 3 });
          expect(seen.events).toEqual([e]);
          expect(seen.version).toBe(session.version);
          expect((await other.listSessions({ appName: APP, userId: USER })).sessions.map((s) => s.id)).toEqual([
            session.id,
          ]);
          expect((await other.createSession({ appName: APP, userId: OTHER_USER })).state).toEqual({ 'app:x': 3 });

          await other.deleteSession({ appName: APP, userId: USER, sessionId: session.id });
          expect(await get(session.id)).toBeUndefined();
        });

        it('a copy read before the other instance appended is stale there too', async () => {
          const created = await service.createSession({ appName: APP, userId: USER });
          const here = await mustGet(created.id);
          const there = await mustGet(created.id, USER, APP, other);

          await append(there, { content: text('there'), actions: { stateDelta: { who: 'there' } } }, other);
          await expect(
            append(here, { content: text('here'), actions: { stateDelta: { who: 'here' } } }),
          ).rejects.toBeInstanceOf(StaleSessionError);

          const got = await mustGet(created.id);
          expect(got.events.map(textOfEvent)).toEqual(['there']);
          expect(got.state).toEqual({ who: 'there' });
          const reloaded = await mustGet(created.id);
          await append(reloaded, { content: text('here, reloaded') });
          expect((await mustGet(created.id, USER, APP, other)).events.map(textOfEvent)).toEqual([
            'there',
            'here, reloaded',
          ]);
        });

        it('concurrent appends through both instances at the same version: exactly one is stored', async () => {
          const created = await service.createSession({ appName: APP, userId: USER });
          const here = await mustGet(created.id);
          const there = await mustGet(created.id, USER, APP, other);
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
          const created = await service.createSession({ appName: APP, userId: USER });
          const e = event({ content: text('once'), actions: { stateDelta: { n: 1 } } });
          const first = await service.appendEvent({ session: created, event: e });
          const there = await mustGet(created.id, USER, APP, other);
          const again = await other.appendEvent({ session: there, event: structuredClone(e) });
          expect(again).toEqual(first);
          expect((await mustGet(created.id)).events).toHaveLength(1);
        });

        it('an incremental read through one instance brings what the other appended', async () => {
          const session = await service.createSession({ appName: APP, userId: USER });
          await append(session, { content: text('here') });
          const held = session0(session);
          const there = await mustGet(session.id, USER, APP, other);
          const e = await append(
            there,
            { content: text('there'), actions: { stateDelta: { 'user:seen': true } } },
            other,
          );
          const got = (await service.getSession({
            appName: APP,
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
          const a = await service.createSession({ appName: APP, userId: USER });
          await append(a, { actions: { stateDelta: { 'user:lang': 'fr', 'app:flag': 1, 'temp:t': 1 } } });
          const b = await other.createSession({ appName: APP, userId: USER });
          expect(b.state).toEqual({ 'user:lang': 'fr', 'app:flag': 1 });
          expect((await mustGet(a.id, USER, APP, other)).state).toEqual({ 'user:lang': 'fr', 'app:flag': 1 });
        });

        if (options.leases !== false) {
          it('a lease taken through one instance excludes owners on the other; a takeover there makes the appends of the first fail', async () => {
            const session = await service.createSession({ appName: APP, userId: USER });
            const k = { appName: APP, userId: USER, sessionId: session.id };
            const here = service as LeasingSessionService;
            const there = other as LeasingSessionService;
            // Both instances connected first: the lease's short life must not be spent opening a connection.
            await mustGet(session.id, USER, APP, other);
            const a = await here.leaseSession({ ...k, owner: 'a', ttlMs: 400 });
            expect(a).toBeDefined();
            expect(await there.leaseSession({ ...k, owner: 'b', ttlMs: 30_000 })).toBeUndefined();
            await sleep(600);
            const b = await there.leaseSession({ ...k, owner: 'b', ttlMs: 30_000 });
            expect(b).toBeDefined();
            await expect(
              service.appendEvent({ session, event: event({ content: text('late') }), lease: a }),
            ).rejects.toBeInstanceOf(LeaseLostError);
            expect((await mustGet(session.id, USER, APP, other)).events).toEqual([]);
          });
        }
      });
    }
  });
}

function event(init: EventInit = {}): Event {
  return createEvent({ invocationId: 'e-contract', author: 'Agent', ...init });
}

function text(value: string): { role: 'model'; parts: { text: string }[] } {
  return { role: 'model', parts: [{ text: value }] };
}

/** What a caller holds of a session at this moment: its version and events (a copy, as a cache keeps it). */
function session0(session: Session): Session {
  return { ...session, state: { ...session.state }, events: [...session.events] };
}

function textOfEvent(e: Event): string {
  return (e.content?.parts ?? []).map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
}

function expectPrototypeClean(): void {
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
