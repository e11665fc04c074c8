import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@troupe/core';
import { createApp, serve, type ServerHandle, type WireEvent, type WireSession } from '../../src/index.js';
import { bankApp, call, createSession, expectError, message, scriptedApp } from '../helpers.js';

// DNS rebinding: a page on attacker.example has its name re-resolved to 127.0.0.1 and then calls
// the tokenless local server "same-origin": Host and Origin both say attacker.example. The server
// used to accept any Host and compare Origin with that Host, so the page read every session, ran
// agents, deleted sessions and approved a pending tool call. Now only the server's own names are
// accepted as Host, and Origin is checked against an allowlist, never against Host.

const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

/** A request over a real socket with the headers exactly as given (fetch would not let us set Host). */
function raw(
  handle: ServerHandle,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: handle.port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Bob's paused transfer, made the legitimate way; returns the app and what a rebound page would try. */
async function pausedTransfer() {
  const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] }, 'Sent.']);
  await createSession(bank.app, 'bank', 'bob', { sessionId: 's' });
  const paused = (await (
    await call(bank.app, 'POST', '/run', {
      appName: 'bank',
      userId: 'bob',
      sessionId: 's',
      newMessage: message('send 500'),
    })
  ).json()) as WireEvent[];
  expect(paused.at(-1)!.interrupt!.id).toBe('Banker:c1');
  const attempts: [string, string, unknown?][] = [
    ['GET', '/apps/bank/users/bob/sessions'],
    ['GET', '/apps/bank/users/bob/sessions/s'],
    ['POST', '/apps/bank/users/bob/sessions/s/resume', { responses: { 'Banker:c1': true } }],
    ['POST', '/run', { appName: 'bank', userId: 'bob', sessionId: 'other', newMessage: message('hi') }],
    ['POST', '/run_sse', { appName: 'bank', userId: 'bob', sessionId: 'other', newMessage: message('hi') }],
    ['DELETE', '/apps/bank/users/bob/sessions/s'],
    ['GET', '/list-apps'],
  ];
  return { ...bank, attempts };
}

async function eventsOf(app: ReturnType<typeof bankApp>['app']): Promise<number> {
  return ((await (await call(app, 'GET', '/apps/bank/users/bob/sessions/s')).json()) as WireSession).events!.length;
}

describe('DNS rebinding: a page on a rebound name cannot drive a tokenless loopback server', () => {
  it('in process: Host attacker.example cannot list, read, run, approve or delete (403 HOST_NOT_ALLOWED naming the host and the fix), with or without a matching Origin', async () => {
    const { app, sent, attempts } = await pausedTransfer();
    const before = await eventsOf(app);
    const rebound: Record<string, string>[] = [
      { Host: 'attacker.example:8000' },
      { Host: 'attacker.example:8000', Origin: 'http://attacker.example:8000' },
      { Host: 'attacker.example' },
    ];
    for (const headers of rebound) {
      for (const [method, path, body] of attempts) {
        const msg = await expectError(await call(app, method, path, body, headers), 403, 'HOST_NOT_ALLOWED');
        expect(msg, `${method} ${path}`).toContain(`'${headers.Host!}'`);
        expect(msg).toMatch(/allowedHosts .*--allowed-host attacker\.example/);
      }
    }
    // An absolute URL naming the rebound host is refused the same way.
    await expectError(
      await app.request('http://attacker.example:8000/apps/bank/users/bob/sessions'),
      403,
      'HOST_NOT_ALLOWED',
    );
    expect(sent).toEqual([]);
    expect(await eventsOf(app)).toBe(before);
    expect((await call(app, 'GET', '/apps/bank/users/bob/sessions/s')).status).toBe(200);
  });

  it('over a real connection on 127.0.0.1: the rebound Host is refused; the loopback names at the bound port work', async () => {
    const { app, sent, attempts } = await pausedTransfer();
    const handle = await serve(app, { port: 0 });
    handles.push(handle);
    for (const [method, path, body] of attempts) {
      const rebound: Record<string, string>[] = [
        { Host: `attacker.example:${handle.port}` },
        { Host: `attacker.example:${handle.port}`, Origin: `http://attacker.example:${handle.port}` },
      ];
      for (const headers of rebound) {
        const res = await raw(handle, method, path, headers, body);
        expect(
          [res.status, (JSON.parse(res.body) as { error: { code: string } }).error.code],
          `${method} ${path}`,
        ).toEqual([403, 'HOST_NOT_ALLOWED']);
      }
    }
    expect(sent).toEqual([]);
    for (const host of [
      `127.0.0.1:${handle.port}`,
      `localhost:${handle.port}`,
      `LOCALHOST:${handle.port}`,
      `[::1]:${handle.port}`,
    ]) {
      expect((await raw(handle, 'GET', '/apps/bank/users/bob/sessions', { Host: host })).status, host).toBe(200);
    }
    // The right name at another port (a proxy or a port forward the user did not set up) is not this server.
    expect((await raw(handle, 'GET', '/list-apps', { Host: `localhost:${handle.port + 1}` })).status).toBe(403);
    // Names that parse as something else in a URL.
    for (const host of [`evil@127.0.0.1:${handle.port}`, `127.0.0.1:${handle.port}/x`, `127.0.0.1:${handle.port}#`]) {
      expect(
        (await raw(handle, 'GET', '/list-apps', { Host: host })).status,
        JSON.stringify(host),
      ).toBeGreaterThanOrEqual(400);
    }
  });

  it('allowedHosts lets named hosts in (name, name:port, .domain); the rest stay out', async () => {
    const { app } = scriptedApp([], { allowedHosts: ['dev.example.com', 'pinned.example.com:8443', '.lab.example'] });
    for (const host of [
      'dev.example.com',
      'dev.example.com:9999',
      'pinned.example.com:8443',
      'lab.example',
      'box.lab.example:1',
      'localhost',
    ]) {
      expect((await call(app, 'GET', '/list-apps', undefined, { Host: host })).status, host).toBe(200);
    }
    for (const host of ['pinned.example.com:8444', 'pinned.example.com', 'evil-lab.example', 'attacker.example']) {
      const msg = await expectError(
        await call(app, 'GET', '/list-apps', undefined, { Host: host }),
        403,
        'HOST_NOT_ALLOWED',
      );
      expect(msg).toContain('allowedHosts: dev.example.com, pinned.example.com:8443, .lab.example');
    }
    expect(() => scriptedApp([], { allowedHosts: ['*'] })).toThrow(ConfigurationError);
    expect(() => scriptedApp([], { allowedHosts: ['http://dev.example.com'] })).toThrow(
      /allowedHosts has "http:\/\/dev.example.com".*e\.g\. 'dev\.example\.com'/,
    );
  });

  it('a server bound to a non-loopback address (with auth) also accepts IP addresses at its port, not names', async () => {
    const app = createApp({ apps: { chat: scriptedApp([]).agent }, auth: { tokens: { secret: '*' } } });
    const handle = await serve(app, { host: '0.0.0.0', port: 0 });
    handles.push(handle);
    const auth = { Authorization: 'Bearer secret' };
    expect((await raw(handle, 'GET', '/list-apps', { ...auth, Host: `10.1.2.3:${handle.port}` })).status).toBe(200);
    expect((await raw(handle, 'GET', '/list-apps', { ...auth, Host: `127.0.0.1:${handle.port}` })).status).toBe(200);
    expect((await raw(handle, 'GET', '/list-apps', { ...auth, Host: `api.example.com:${handle.port}` })).status).toBe(
      403,
    );
  });
});

describe('Origin is checked against an allowlist, never against Host', () => {
  it("a page of another origin cannot change anything, even when Host is the server's own; the server's own pages can", async () => {
    const { app, sent, attempts } = await pausedTransfer();
    const handle = await serve(app, { port: 0 });
    handles.push(handle);
    const own = `127.0.0.1:${handle.port}`;
    // A page on another local port (any local dev server) and a rebound page that reached the server by its real name.
    for (const origin of [`http://localhost:${handle.port + 1}`, `http://attacker.example:${handle.port}`, 'null']) {
      for (const [method, path, body] of attempts.filter(([m]) => m !== 'GET')) {
        const res = await raw(handle, method, path, { Host: own, Origin: origin }, body);
        expect(
          [res.status, (JSON.parse(res.body) as { error: { code: string } }).error.code],
          `${origin} ${method} ${path}`,
        ).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
      }
    }
    expect(sent).toEqual([]);
    // The dev UI at any of the loopback names is the server's own page.
    for (const origin of [
      `http://127.0.0.1:${handle.port}`,
      `http://localhost:${handle.port}`,
      `http://[::1]:${handle.port}`,
    ]) {
      const res = await raw(handle, 'POST', '/apps/bank/users/bob/sessions', { Host: own, Origin: origin }, {});
      expect(res.status, origin).toBe(200);
    }
  });

  it('allowedOrigins: the CORS preflight of a listed origin is 204 with what it may send; an unlisted one is refused', async () => {
    const vite = 'http://localhost:5173';
    const { app } = scriptedApp(['Hello'], { allowedOrigins: [vite, 'https://ui.example/'] });
    const preflight = (origin: string) =>
      call(app, 'OPTIONS', '/run', undefined, {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      });
    const ok = await preflight(vite);
    expect(ok.status).toBe(204);
    expect(
      Object.fromEntries([...ok.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary')),
    ).toEqual({
      'access-control-allow-origin': vite,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-expose-headers': 'X-Request-Id',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect((await preflight('https://ui.example')).status).toBe(204);
    const refused = await preflight('http://localhost:3000');
    expect(await expectError(refused, 403, 'ORIGIN_NOT_ALLOWED')).toMatch(
      /'http:\/\/localhost:3000'.*--allow-origin http:\/\/localhost:3000/,
    );
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    // The listed origin's real requests carry the CORS headers (errors too), so the page can read them.
    const s = await createSession(app, 'chat', 'alice', {}, { Origin: vite });
    const run = await call(
      app,
      'POST',
      '/run',
      { appName: 'chat', userId: 'alice', sessionId: s.id, newMessage: message('hi') },
      { Origin: vite },
    );
    expect(run.status).toBe(200);
    expect(run.headers.get('access-control-allow-origin')).toBe(vite);
    expect(run.headers.get('vary')).toContain('Origin');
    const missing = await call(app, 'GET', '/apps/chat/users/alice/sessions/nope', undefined, { Origin: vite });
    expect([missing.status, missing.headers.get('access-control-allow-origin')]).toEqual([404, vite]);
    // A foreign page may not read: no CORS headers on its GETs.
    const read = await call(app, 'GET', '/list-apps', undefined, { Origin: 'http://localhost:3000' });
    expect([read.status, read.headers.get('access-control-allow-origin')]).toEqual([200, null]);
  });

  it('rejects allowedOrigins entries that are not origins, naming the entry and the form', () => {
    for (const bad of ['localhost:5173', 'http://localhost:5173/app', 'ftp://x.example', '*']) {
      expect(() => scriptedApp([], { allowedOrigins: [bad] }), bad).toThrow(
        /allowedOrigins has .*e\.g\. 'http:\/\/localhost:5173'/,
      );
    }
  });
});
