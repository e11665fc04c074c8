import { describe, expect, it } from 'vitest';
import type { WireSession } from '../src/index.js';
import { call, createSession, expectError, heldToolApp, message, scriptedApp } from './helpers.js';

const run = (app: Parameters<typeof call>[0], sessionId: string, text: string, stateDelta?: Record<string, unknown>) =>
  call(app, 'POST', '/run', {
    appName: 'chat',
    userId: 'alice',
    sessionId,
    newMessage: message(text),
    ...(stateDelta ? { stateDelta } : {}),
  });

describe('POST /apps/{app}/users/{user}/sessions/{id}/rewind (ADK rewind)', () => {
  it('rewinds to before an invocation and answers the session: state restored, events kept, one rewind event', async () => {
    const { app, model } = scriptedApp(['a1', 'a2', 'a3']);
    const s = await createSession(app, 'chat', 'alice');
    await run(app, s.id, 'q1', { plan: 'A' });
    const second = (await (await run(app, s.id, 'q2', { plan: 'B', extra: true, 'user:lang': 'fr' })).json()) as {
      invocationId: string;
    }[];
    const path = `/apps/chat/users/alice/sessions/${s.id}`;

    const res = await call(app, 'POST', `${path}/rewind`, { invocationId: second[0]!.invocationId });
    expect(res.status).toBe(200);
    const session = (await res.json()) as WireSession;
    expect(session.state).toEqual({ plan: 'A', 'user:lang': 'fr' });
    expect(session.events!.at(-1)).toMatchObject({
      author: 'user',
      actions: { rewindBeforeInvocationId: second[0]!.invocationId },
    });
    expect(session.events!.filter((e) => e.invocationId === second[0]!.invocationId).length).toBeGreaterThan(0);
    expect((await (await call(app, 'GET', path)).json()) as WireSession).toEqual(session);

    // The next turn's model does not see the rewound turn.
    await run(app, s.id, 'q3');
    expect(model.requests[2]!.contents.map((c) => (c.parts[0] as { text: string }).text)).toEqual(['q1', 'a1', 'q3']);
  });

  it('takes snake_case invocation_id, as ADK Python clients send it', async () => {
    const { app } = scriptedApp(['a1']);
    const s = await createSession(app, 'chat', 'alice');
    const first = (await (await run(app, s.id, 'q1', { plan: 'A' })).json()) as { invocationId: string }[];
    const res = await call(app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/rewind`, {
      invocation_id: first[0]!.invocationId,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as WireSession).state).toEqual({});
  });

  it('is 400 for a bad body, 404 for an unknown invocation, session or app; nothing is stored', async () => {
    const { app } = scriptedApp(['a1']);
    const s = await createSession(app, 'chat', 'alice');
    await run(app, s.id, 'q1');
    const path = `/apps/chat/users/alice/sessions/${s.id}/rewind`;
    for (const body of [{}, { invocationId: '' }, { invocationId: 7 }]) {
      const res = await call(app, 'POST', path, body);
      const error = (await res.json()) as { error: { code: string; field: string } };
      expect([res.status, error.error.code, error.error.field], JSON.stringify(body)).toEqual([
        400,
        'INVALID_REQUEST',
        'invocationId',
      ]);
    }
    expect(
      await expectError(await call(app, 'POST', path, { invocationId: 'nope' }), 404, 'INVOCATION_NOT_FOUND'),
    ).toMatch(/has no invocation 'nope'/);
    await expectError(
      await call(app, 'POST', '/apps/chat/users/alice/sessions/missing/rewind', { invocationId: 'x' }),
      404,
      'SESSION_NOT_FOUND',
    );
    await expectError(
      await call(app, 'POST', `/apps/nope/users/alice/sessions/${s.id}/rewind`, { invocationId: 'x' }),
      404,
      'APP_NOT_FOUND',
    );
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.events).toHaveLength(2);
  });

  it("follows the session routes' user rules: no token is 401, another user's session 403", async () => {
    const { app } = scriptedApp(['a1'], { auth: { tokens: { 'alice-token': 'alice', 'admin-token': '*' } } });
    const alice = { Authorization: 'Bearer alice-token' };
    const s = await createSession(app, 'chat', 'alice', undefined, alice);
    const first = (await (
      await call(
        app,
        'POST',
        '/run',
        { appName: 'chat', userId: 'alice', sessionId: s.id, newMessage: message('q1') },
        alice,
      )
    ).json()) as { invocationId: string }[];
    const path = `/apps/chat/users/alice/sessions/${s.id}/rewind`;
    await expectError(await call(app, 'POST', path, { invocationId: first[0]!.invocationId }), 401, 'UNAUTHORIZED');
    const bob = await createSession(app, 'chat', 'bob', undefined, { Authorization: 'Bearer admin-token' });
    await expectError(
      await call(
        app,
        'POST',
        `/apps/chat/users/bob/sessions/${bob.id}/rewind`,
        { invocationId: first[0]!.invocationId },
        alice,
      ),
      403,
      'FORBIDDEN',
    );
    expect((await call(app, 'POST', path, { invocationId: first[0]!.invocationId }, alice)).status).toBe(200);
  });

  it('is 409 SESSION_BUSY while an invocation runs on the session, and stores nothing', async () => {
    const { app, toolStarted, release } = heldToolApp(['a1', { functionCalls: [{ name: 'wait', args: {} }] }, 'done']);
    const s = await createSession(app, 'chat', 'alice');
    const first = (await (await run(app, s.id, 'q1')).json()) as { invocationId: string }[];
    const running = run(app, s.id, 'go');
    await toolStarted;
    await expectError(
      await call(app, 'POST', `/apps/chat/users/alice/sessions/${s.id}/rewind`, {
        invocationId: first[0]!.invocationId,
      }),
      409,
      'SESSION_BUSY',
    );
    release();
    expect((await running).status).toBe(200);
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    expect(session.events!.some((e) => e.actions.rewindBeforeInvocationId)).toBe(false);
  });
});
