import { describe, expect, it } from 'vitest';
import type { WireEvent, WireSession } from '../src/index.js';
import { bankApp, call, expectError, message, readSse, scriptedApp } from './helpers.js';

const ALICE = { Authorization: 'Bearer alice-token' };
const BOB = { Authorization: 'Bearer bob-token' };
const ADMIN = { Authorization: 'Bearer admin-token' };
const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'admin-token': '*' };

describe('auth', () => {
  it('requires a bearer token on every API route (401 with WWW-Authenticate), but not on /health', async () => {
    const { app } = scriptedApp([], { auth: { tokens } });
    expect((await call(app, 'GET', '/health')).status).toBe(200);
    for (const [method, path, body] of [
      ['GET', '/list-apps'],
      ['GET', '/apps/chat/graph'],
      ['POST', '/apps/chat/users/alice/sessions'],
      ['GET', '/apps/chat/users/alice/sessions'],
      ['GET', '/apps/chat/users/alice/sessions/s'],
      ['DELETE', '/apps/chat/users/alice/sessions/s'],
      ['POST', '/apps/chat/users/alice/sessions/s/resume', { responses: {} }],
      ['POST', '/run', { appName: 'chat', userId: 'alice', sessionId: 's', newMessage: message('hi') }],
      ['POST', '/run_sse', { appName: 'chat', userId: 'alice', sessionId: 's', newMessage: message('hi') }],
    ] as const) {
      const res = await call(app, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
      await expectError(res, 401, 'UNAUTHORIZED');
    }
    await expectError(
      await call(app, 'GET', '/list-apps', undefined, { Authorization: 'Bearer wrong' }),
      401,
      'UNAUTHORIZED',
    );
    await expectError(
      await call(app, 'GET', '/list-apps', undefined, { Authorization: 'Basic YWxpY2U6eA==' }),
      401,
      'UNAUTHORIZED',
    );
    expect(await (await call(app, 'GET', '/list-apps', undefined, ALICE)).json()).toEqual(['chat']);
  });

  it("user A cannot list, read, run, resume or delete user B's sessions (403); B and an admin token can", async () => {
    const { app, sent } = bankApp(
      [{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }, 'Sent.'],
      { auth: { tokens } },
    );
    // Bob creates his session and pauses a run on it.
    const created = await call(app, 'POST', '/apps/bank/users/bob/sessions', { sessionId: 'bob-s' }, BOB);
    expect(created.status).toBe(200);
    const run = { appName: 'bank', userId: 'bob', sessionId: 'bob-s', newMessage: message('send 5') };
    const paused = (await (await call(app, 'POST', '/run', run, BOB)).json()) as WireEvent[];
    expect(paused.at(-1)!.interrupt!.id).toBe('Banker:c1');

    // Alice may touch none of it.
    const forbidden = [
      ['POST', '/apps/bank/users/bob/sessions', {}],
      ['POST', '/apps/bank/users/bob/sessions/alice-made'],
      ['GET', '/apps/bank/users/bob/sessions'],
      ['GET', '/apps/bank/users/bob/sessions/bob-s'],
      ['DELETE', '/apps/bank/users/bob/sessions/bob-s'],
      ['POST', '/apps/bank/users/bob/sessions/bob-s/resume', { responses: { 'Banker:c1': true } }],
      ['POST', '/run', run],
      ['POST', '/run_sse', run],
    ] as const;
    for (const [method, path, body] of forbidden) {
      const msg = await expectError(await call(app, method, path, body, ALICE), 403, 'FORBIDDEN');
      expect(msg).toMatch(/'alice'.*'bob'/);
    }
    expect(sent).toEqual([]);
    // Alice's own space works.
    expect((await call(app, 'GET', '/apps/bank/users/alice/sessions', undefined, ALICE)).status).toBe(200);

    // Bob reads his session; the admin token can read, resume and delete it.
    expect((await call(app, 'GET', '/apps/bank/users/bob/sessions/bob-s', undefined, BOB)).status).toBe(200);
    const list = (await (
      await call(app, 'GET', '/apps/bank/users/bob/sessions', undefined, ADMIN)
    ).json()) as WireSession[];
    expect(list.map((s) => s.id)).toEqual(['bob-s']);
    const { events } = await readSse(
      await call(
        app,
        'POST',
        '/apps/bank/users/bob/sessions/bob-s/resume',
        { responses: { 'Banker:c1': true } },
        ADMIN,
      ),
    );
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Sent.' }]);
    expect(sent).toEqual([5]);
    expect((await call(app, 'DELETE', '/apps/bank/users/bob/sessions/bob-s', undefined, ADMIN)).status).toBe(204);
  });

  it('accepts a verify function (sync or async) instead of a token map', async () => {
    const { app } = scriptedApp(['hi'], {
      auth: { verify: async (token) => (token === 'good' ? 'carol' : undefined) },
    });
    const good = { Authorization: 'Bearer good' };
    expect((await call(app, 'POST', '/apps/chat/users/carol/sessions', { sessionId: 's' }, good)).status).toBe(200);
    expect(
      (
        await call(
          app,
          'POST',
          '/run',
          { appName: 'chat', userId: 'carol', sessionId: 's', newMessage: message('hi') },
          good,
        )
      ).status,
    ).toBe(200);
    await expectError(await call(app, 'GET', '/apps/chat/users/dave/sessions', undefined, good), 403, 'FORBIDDEN');
    await expectError(
      await call(app, 'GET', '/list-apps', undefined, { Authorization: 'Bearer bad' }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('without auth configured, no Authorization header is needed', async () => {
    const { app } = scriptedApp(['hi']);
    expect((await call(app, 'POST', '/apps/chat/users/anyone/sessions', { sessionId: 's' })).status).toBe(200);
    expect(
      (
        await call(app, 'POST', '/run', {
          appName: 'chat',
          userId: 'anyone',
          sessionId: 's',
          newMessage: message('hi'),
        })
      ).status,
    ).toBe(200);
  });

  it('rejects unusable auth options when the app is created', () => {
    expect(() => scriptedApp([], { auth: { tokens: {} } })).toThrow(/at least one token/);
    expect(() => scriptedApp([], { auth: { tokens: { 'has space': 'a' } } })).toThrow(/whitespace/);
    expect(() => scriptedApp([], { auth: { tokens: { t: '' } } })).toThrow(/user id string/);
  });

  it('refuses state-changing requests from another origin unless allowed (a web page cannot drive the local API)', async () => {
    const { app } = scriptedApp([]);
    const evil = { Origin: 'https://evil.example' };
    await expectError(await call(app, 'POST', '/apps/chat/users/alice/sessions', {}, evil), 403, 'ORIGIN_NOT_ALLOWED');
    // Reading is harmless without CORS headers; the same origin is fine.
    expect((await call(app, 'GET', '/list-apps', undefined, evil)).status).toBe(200);
    expect(
      (await call(app, 'POST', '/apps/chat/users/alice/sessions', {}, { Origin: 'http://localhost' })).status,
    ).toBe(200);

    const { app: open } = scriptedApp([], { allowedOrigins: ['https://ui.example'] });
    const res = await call(open, 'POST', '/apps/chat/users/alice/sessions', {}, { Origin: 'https://ui.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://ui.example');
  });
});
