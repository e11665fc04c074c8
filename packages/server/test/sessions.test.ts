import { describe, expect, it } from 'vitest';
import type { WireSession } from '../src/index.js';
import { call, createSession, expectError, message, runBody, scriptedApp } from './helpers.js';

describe('session routes', () => {
  it('POST /apps/{app}/users/{user}/sessions creates a session with a new id, or the given id and state', async () => {
    const { app, sessionService } = scriptedApp([]);
    const before = Date.now() / 1000;
    const plain = await createSession(app, 'chat', 'alice');
    expect(plain).toMatchObject({ appName: 'chat', userId: 'alice', state: {}, events: [] });
    expect(plain.id).toEqual(expect.any(String));
    // lastUpdateTime is seconds on the wire.
    expect(plain.lastUpdateTime).toBeGreaterThanOrEqual(before - 1);
    expect(plain.lastUpdateTime).toBeLessThan(Date.now() / 1000 + 1);

    const named = await createSession(app, 'chat', 'alice', { sessionId: 's1', state: { topic: 'trains' } });
    expect(named).toMatchObject({ id: 's1', state: { topic: 'trains' } });
    const stored = await sessionService.getSession({ appName: 'chat', userId: 'alice', sessionId: 's1' });
    expect(stored!.state).toEqual({ topic: 'trains' });
    // The in-process time stays milliseconds.
    expect(stored!.lastUpdateTime).toBeCloseTo(named.lastUpdateTime * 1000, -1);
  });

  it('accepts an empty body and snake_case keys, as ADK clients send them', async () => {
    const { app } = scriptedApp([]);
    const res = await app.request('/apps/chat/users/alice/sessions', { method: 'POST' });
    expect(res.status).toBe(200);
    const snake = await createSession(app, 'chat', 'alice', { session_id: 'snake', state: { a: 1 } });
    expect(snake).toMatchObject({ id: 'snake', state: { a: 1 } });
  });

  it('POST .../sessions/{id} creates the session with that id; an existing id is 409', async () => {
    const { app } = scriptedApp([]);
    const res = await call(app, 'POST', '/apps/chat/users/alice/sessions/fixed', { state: { x: 1 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'fixed', state: { x: 1 } });
    await expectError(await call(app, 'POST', '/apps/chat/users/alice/sessions/fixed'), 409, 'SESSION_EXISTS');
    await expectError(
      await call(app, 'POST', '/apps/chat/users/alice/sessions', { sessionId: 'fixed' }),
      409,
      'SESSION_EXISTS',
    );
    await expectError(
      await call(app, 'POST', '/apps/chat/users/alice/sessions/other', { sessionId: 'different' }),
      400,
      'INVALID_REQUEST',
    );
  });

  it('two concurrent creates of one id: one is 200, the other 409 SESSION_EXISTS (the store decides, no racy pre-check)', async () => {
    const { app } = scriptedApp([]);
    const [first, second] = await Promise.all([
      call(app, 'POST', '/apps/chat/users/alice/sessions/raced', { state: { n: 1 } }),
      call(app, 'POST', '/apps/chat/users/alice/sessions/raced', { state: { n: 2 } }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    await expectError(first.status === 409 ? first : second, 409, 'SESSION_EXISTS');
  });

  it("GET .../sessions is a bare JSON array of the user's sessions, without events", async () => {
    const { app } = scriptedApp(['hi']);
    const s = await createSession(app, 'chat', 'alice', { sessionId: 'a1' });
    await createSession(app, 'chat', 'alice', { sessionId: 'a2' });
    await createSession(app, 'chat', 'bob', { sessionId: 'b1' });
    expect((await call(app, 'POST', '/run', runBody(s, 'hello'))).status).toBe(200);

    const res = await call(app, 'GET', '/apps/chat/users/alice/sessions');
    expect(res.status).toBe(200);
    const list = (await res.json()) as WireSession[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((x) => x.id).sort()).toEqual(['a1', 'a2']);
    for (const session of list) {
      expect(session).not.toHaveProperty('events');
      expect(session.lastUpdateTime).toBeLessThan(1e11); // seconds, not milliseconds
    }
  });

  it('GET .../sessions/{id} returns the session with its events (ids kept, seconds timestamps); unknown is 404', async () => {
    const { app } = scriptedApp(['first answer', 'second answer']);
    const s = await createSession(app, 'chat', 'alice');
    const start = Date.now() / 1000;
    await call(app, 'POST', '/run', { appName: 'chat', userId: 'alice', sessionId: s.id, newMessage: message('one') });
    await new Promise((resolve) => setTimeout(resolve, 15));
    const middle = Date.now() / 1000;
    await call(app, 'POST', '/run', { appName: 'chat', userId: 'alice', sessionId: s.id, newMessage: message('two') });

    const res = await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`);
    expect(res.status).toBe(200);
    const session = (await res.json()) as WireSession;
    expect(session.events!.map((e) => e.author)).toEqual(['user', 'assistant', 'user', 'assistant']);
    for (const event of session.events!) {
      expect(event.id).toEqual(expect.any(String));
      expect(event.timestamp).toBeGreaterThanOrEqual(start - 1);
      expect(event.timestamp).toBeLessThan(Date.now() / 1000 + 1);
    }
    expect(new Set(session.events!.map((e) => e.id)).size).toBe(4);

    // Query filters: the newest N events, or those after a time given in seconds.
    const recent = (await (
      await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}?numRecentEvents=1`)
    ).json()) as WireSession;
    expect(recent.events!.map((e) => e.id)).toEqual([session.events![3]!.id]);
    const after = (await (
      await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}?afterTimestamp=${middle}`)
    ).json()) as WireSession;
    expect(after.events!.map((e) => e.id)).toEqual(session.events!.slice(2).map((e) => e.id));
    await expectError(
      await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}?numRecentEvents=-2`),
      400,
      'INVALID_REQUEST',
    );

    await expectError(await call(app, 'GET', '/apps/chat/users/alice/sessions/nope'), 404, 'SESSION_NOT_FOUND');
    // Another user's id space: the same id does not exist for bob.
    await expectError(await call(app, 'GET', `/apps/chat/users/bob/sessions/${s.id}`), 404, 'SESSION_NOT_FOUND');
  });

  it('DELETE .../sessions/{id} deletes it (204); deleting again is 404', async () => {
    const { app } = scriptedApp([]);
    const s = await createSession(app, 'chat', 'alice');
    const res = await call(app, 'DELETE', `/apps/chat/users/alice/sessions/${s.id}`);
    expect(res.status).toBe(204);
    await expectError(await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`), 404, 'SESSION_NOT_FOUND');
    await expectError(await call(app, 'DELETE', `/apps/chat/users/alice/sessions/${s.id}`), 404, 'SESSION_NOT_FOUND');
  });

  it('an unknown app is 404 on every session route', async () => {
    const { app } = scriptedApp([]);
    await expectError(await call(app, 'POST', '/apps/nope/users/alice/sessions'), 404, 'APP_NOT_FOUND');
    await expectError(await call(app, 'POST', '/apps/nope/users/alice/sessions/x'), 404, 'APP_NOT_FOUND');
    await expectError(await call(app, 'GET', '/apps/nope/users/alice/sessions'), 404, 'APP_NOT_FOUND');
    await expectError(await call(app, 'GET', '/apps/nope/users/alice/sessions/x'), 404, 'APP_NOT_FOUND');
    await expectError(await call(app, 'DELETE', '/apps/nope/users/alice/sessions/x'), 404, 'APP_NOT_FOUND');
    await expectError(
      await call(app, 'POST', '/apps/nope/users/alice/sessions/x/resume', { responses: {} }),
      404,
      'APP_NOT_FOUND',
    );
  });

  it('rejects bad bodies with 400 naming the field', async () => {
    const { app } = scriptedApp([]);
    expect(
      await expectError(
        await call(app, 'POST', '/apps/chat/users/alice/sessions', { state: 'not an object' }),
        400,
        'INVALID_REQUEST',
      ),
    ).toMatch(/state/);
    expect(
      await expectError(await call(app, 'POST', '/apps/chat/users/alice/sessions', '{"state": '), 400, 'INVALID_JSON'),
    ).toMatch(/not valid JSON/);
    expect(
      await expectError(await call(app, 'POST', '/apps/chat/users/alice/sessions', [1, 2]), 400, 'INVALID_REQUEST'),
    ).toMatch(/array/);
    // A prototype key would vanish when copied; it is refused instead of silently dropped.
    const res = await call(app, 'POST', '/apps/chat/users/alice/sessions', '{"state": {"__proto__": {"admin": true}}}');
    const body = (await res.json()) as { error: { code: string; field: string } };
    expect([res.status, body.error.code, body.error.field]).toEqual([400, 'RESERVED_KEY', 'state.__proto__']);
  });
});
