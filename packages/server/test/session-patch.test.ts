import { describe, expect, it } from 'vitest';
import type { WireSession } from '../src/index.js';
import { bankApp, call, createSession, expectError, heldToolApp, runBody, scriptedApp } from './helpers.js';

const patch = (app: Parameters<typeof call>[0], path: string, body: unknown, headers?: Record<string, string>) =>
  call(app, 'PATCH', path, body, headers);

describe('PATCH /apps/{app}/users/{user}/sessions/{id} (ADK session update)', () => {
  it('applies { stateDelta } as a stored user event and answers the updated session, as GET shows it', async () => {
    const { app } = scriptedApp([]);
    const s = await createSession(app, 'chat', 'alice', { state: { city: 'Paris', keep: 1 } });

    const res = await patch(app, `/apps/chat/users/alice/sessions/${s.id}`, {
      stateDelta: { city: 'Lyon', 'user:lang': 'fr', __session_metadata__: { displayName: 'Trip' } },
    });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as WireSession;
    expect(updated.state).toEqual({
      city: 'Lyon',
      keep: 1,
      'user:lang': 'fr',
      __session_metadata__: { displayName: 'Trip' },
    });
    expect(updated.events).toHaveLength(1);
    expect(updated.events![0]).toMatchObject({
      author: 'user',
      actions: { stateDelta: { city: 'Lyon', 'user:lang': 'fr' } },
    });
    expect(updated.events![0]!.content).toBeUndefined();
    expect(updated.events![0]!.invocationId).toMatch(/^p-/);
    expect(updated.lastUpdateTime).toBeLessThan(1e11); // seconds, as everywhere on the wire

    const read = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(read).toEqual(updated);
    // user: keys reach the user's other sessions, as with a run's stateDelta.
    const other = await createSession(app, 'chat', 'alice');
    expect(other.state['user:lang']).toBe('fr');
  });

  it('accepts snake_case state_delta, as ADK Python clients send it; the next run sees the state', async () => {
    const { app, model } = scriptedApp(['ok']);
    const s = await createSession(app, 'chat', 'alice');
    expect(
      (await patch(app, `/apps/chat/users/alice/sessions/${s.id}`, { state_delta: { mood: 'happy' } })).status,
    ).toBe(200);
    const run = await call(app, 'POST', '/run', runBody(s, 'hi'));
    expect(run.status).toBe(200);
    expect(model.requests).toHaveLength(1);
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.state).toEqual({ mood: 'happy' });
  });

  it('bad bodies are 400s naming the field; nothing is stored', async () => {
    const { app } = scriptedApp([]);
    const s = await createSession(app, 'chat', 'alice');
    const path = `/apps/chat/users/alice/sessions/${s.id}`;
    for (const body of [{}, { stateDelta: null }, { stateDelta: [1] }, { stateDelta: 'x' }]) {
      const res = await patch(app, path, body);
      const error = (await res.json()) as { error: { code: string; field: string; message: string } };
      expect([res.status, error.error.code, error.error.field], JSON.stringify(body)).toEqual([
        400,
        'INVALID_REQUEST',
        'stateDelta',
      ]);
      expect(error.error.message).toMatch(/stateDelta/);
    }
    const temp = await patch(app, path, { stateDelta: { 'temp:x': 1 } });
    expect(((await temp.clone().json()) as { error: { field: string } }).error.field).toBe('stateDelta.temp:x');
    expect(await expectError(temp, 400, 'INVALID_STATE_KEY')).toMatch(/live for one invocation/);
    await expectError(await patch(app, path, { stateDelta: { big: 'x'.repeat(70_000) } }), 400, 'STATE_TOO_LARGE');
    await expectError(await patch(app, path, '{"stateDelta":{"__proto__":{}}}'), 400, 'RESERVED_KEY');
    const session = (await (await call(app, 'GET', path)).json()) as WireSession;
    expect(session.events).toEqual([]);
    expect(session.state).toEqual({});
  });

  it('an unknown session or app is 404', async () => {
    const { app } = scriptedApp([]);
    expect(
      await expectError(
        await patch(app, '/apps/chat/users/alice/sessions/missing', { stateDelta: { a: 1 } }),
        404,
        'SESSION_NOT_FOUND',
      ),
    ).toMatch(/missing/);
    await expectError(
      await patch(app, '/apps/nope/users/alice/sessions/s', { stateDelta: { a: 1 } }),
      404,
      'APP_NOT_FOUND',
    );
  });

  it("follows the session routes' user rules: another user's session is 403, app: keys need an admin token", async () => {
    const { app } = scriptedApp([], { auth: { tokens: { 'alice-token': 'alice', 'admin-token': '*' } } });
    const alice = { Authorization: 'Bearer alice-token' };
    const s = await createSession(app, 'chat', 'alice', undefined, alice);
    const path = `/apps/chat/users/alice/sessions/${s.id}`;
    await expectError(await patch(app, path, { stateDelta: { a: 1 } }), 401, 'UNAUTHORIZED');
    const bob = await createSession(app, 'chat', 'bob', undefined, { Authorization: 'Bearer admin-token' });
    await expectError(
      await patch(app, `/apps/chat/users/bob/sessions/${bob.id}`, { stateDelta: { a: 1 } }, alice),
      403,
      'FORBIDDEN',
    );
    await expectError(await patch(app, path, { stateDelta: { 'app:motd': 'hi' } }, alice), 403, 'STATE_KEY_FORBIDDEN');
    expect(
      (await patch(app, path, { stateDelta: { 'app:motd': 'hi' } }, { Authorization: 'Bearer admin-token' })).status,
    ).toBe(200);
    expect((await patch(app, path, { stateDelta: { a: 1 } }, alice)).status).toBe(200);
  });

  it('is 409 SESSION_BUSY while an invocation runs on the session, and stores nothing', async () => {
    const { app, toolStarted, release } = heldToolApp([{ functionCalls: [{ name: 'wait', args: {} }] }, 'done']);
    const s = await createSession(app, 'chat', 'alice');
    const running = call(app, 'POST', '/run', runBody(s, 'go'));
    await toolStarted;
    expect(
      await expectError(
        await patch(app, `/apps/chat/users/alice/sessions/${s.id}`, { stateDelta: { a: 1 } }),
        409,
        'SESSION_BUSY',
      ),
    ).toMatch(/running an invocation/);
    release();
    expect((await running).status).toBe(200);
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.state).toEqual({});
    expect((await patch(app, `/apps/chat/users/alice/sessions/${s.id}`, { stateDelta: { a: 1 } })).status).toBe(200);
  });

  it('on a session paused for approval, the update keeps the interrupt open and the run resumable', async () => {
    const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] }, 'Sent.']);
    const s = await createSession(bank.app, 'bank', 'alice');
    await call(bank.app, 'POST', '/run', runBody(s, 'send 500'));
    const updated = (await (
      await patch(bank.app, `/apps/bank/users/alice/sessions/${s.id}`, { stateDelta: { note: 'checked' } })
    ).json()) as WireSession;
    expect(updated.state).toEqual({ note: 'checked' });
    // Still paused: a new turn is refused, the approval goes through.
    await expectError(await call(bank.app, 'POST', '/run', runBody(s, 'hello?')), 409, 'PENDING_INTERRUPT');
    const resumed = await call(bank.app, 'POST', `/apps/bank/users/alice/sessions/${s.id}/resume`, {
      responses: { 'Banker:c1': true },
    });
    expect(resumed.status).toBe(200);
    await resumed.text();
    expect(bank.sent).toEqual([500]);
  });
});
