import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import {
  createApp,
  isLoopback,
  serve,
  type CreateAppOptions,
  type ServerHandle,
  type WireEvent,
  type WireSession,
} from '../src/index.js';
import { deferred } from '../../core/test/wait.js';
import { call, createSession, eventually, expectError, message, parseFrames } from './helpers.js';

const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

function appWith(replies: ConstructorParameters<typeof ScriptedModel>[0], options: Partial<CreateAppOptions> = {}) {
  const agent = new LlmAgent({ name: 'assistant', model: new ScriptedModel(replies) });
  return createApp({ apps: { chat: agent }, sessionService: new InMemorySessionService(), ...options });
}

/** A model reply that says when the run reached the model, and answers `text` only once released. */
function heldReply(text: string) {
  const started = deferred();
  const release = deferred();
  const reply = async () => {
    started.resolve();
    await release.promise;
    return text;
  };
  return { reply, started: started.promise, release: () => release.resolve() };
}

async function post(handle: ServerHandle, path: string, body: unknown): Promise<Response> {
  return fetch(`${handle.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('serve()', () => {
  it('listens on 127.0.0.1 by default; port 0 picks a free port; the handle gives the URL', async () => {
    const handle = await serve(appWith(['Hi!']), { port: 0 });
    handles.push(handle);
    expect(handle.host).toBe('127.0.0.1');
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
    expect(await (await fetch(`${handle.url}/health`)).json()).toMatchObject({ status: 'ok' });
    await post(handle, '/apps/chat/users/u/sessions', { sessionId: 's' });
    const res = await post(handle, '/run_sse', {
      appName: 'chat',
      userId: 'u',
      sessionId: 's',
      newMessage: message('hi'),
      streaming: false,
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(parseFrames(await res.text()).map((e) => e.content?.parts)).toEqual([[{ text: 'Hi!' }]]);
  });

  it('over a real connection: DELETE works, a chunked body is read, and one over the limit is a 413 without reading it all', async () => {
    const app = appWith(['ok'], { bodyLimit: 4096 });
    const handle = await serve(app, { port: 0 });
    handles.push(handle);
    const created = await fetch(`${handle.url}/apps/chat/users/u/sessions/s`, { method: 'POST' });
    expect(created.status).toBe(200);
    const chunked = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      // No Content-Length: the body arrives in chunks, as a streaming client sends it.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
          controller.close();
        },
      });
      return fetch(`${handle.url}/run`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        duplex: 'half',
      });
    };
    const small = await chunked(
      JSON.stringify({ appName: 'chat', userId: 'u', sessionId: 's', newMessage: message('hi') }),
    );
    expect(small.status).toBe(200);
    const big = await chunked(
      JSON.stringify({ appName: 'chat', userId: 'u', sessionId: 's', newMessage: message('x'.repeat(10_000)) }),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    const deleted = await fetch(`${handle.url}/apps/chat/users/u/sessions/s`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
  });

  it('refuses to bind a non-loopback address without auth, naming the host and the fix', async () => {
    const app = appWith([]);
    await expect(serve(app, { host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /Refusing to listen on '0\.0\.0\.0'.*no auth configured.*auth: \{ tokens/,
    );
    await expect(serve(app, { host: '::', port: 0 })).rejects.toThrow(/'::'/);
    const secured = await serve(appWith([], { auth: { tokens: { secret: '*' } } }), { host: '0.0.0.0', port: 0 });
    handles.push(secured);
    const res = await fetch(`http://127.0.0.1:${secured.port}/list-apps`, {
      headers: { Authorization: 'Bearer secret' },
    });
    expect(await res.json()).toEqual(['chat']);
    expect((await fetch(`http://127.0.0.1:${secured.port}/list-apps`)).status).toBe(401);
  });

  it('tells loopback addresses from others', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.2', '192.168.1.5', 'example.com', '127.0.0.1.nip.io'])
      expect(isLoopback(host), host).toBe(false);
  });

  it('refuses apps not made by createApp and bad ports', async () => {
    const { Hono } = await import('hono');
    await expect(serve(new Hono() as never, { port: 0 })).rejects.toThrow(/made by createApp/);
    await expect(serve(appWith([]), { port: 70000 })).rejects.toThrow(/port/);
  });

  it('close() lets in-flight runs finish, refuses new connections, and resolves when done', async () => {
    const held = heldReply('Finished in time.');
    const app = appWith([held.reply]);
    const handle = await serve(app, { port: 0 });
    await createSession(app, 'chat', 'u', { sessionId: 's' });
    const running = post(handle, '/run', { appName: 'chat', userId: 'u', sessionId: 's', newMessage: message('hi') });
    await held.started;
    let closed = false;
    const closing = handle.close({ gracePeriodMs: 60_000 }).then(() => (closed = true));
    // New connections are refused at once, while the run in flight holds close() open.
    await eventually(() => expect(fetch(`${handle.url}/health`)).rejects.toThrow());
    expect(closed).toBe(false);
    held.release();
    await closing;
    const res = await running;
    expect(res.status).toBe(200);
    expect(((await res.json()) as WireEvent[]).at(-1)!.content!.parts).toEqual([{ text: 'Finished in time.' }]);
  });

  it('close() cancels runs still going after the grace period; the stream gets the error frame and the session stays valid', async () => {
    const app = appWith([{ delayMs: 20_000, reply: 'never' }]);
    const handle = await serve(app, { port: 0 });
    await createSession(app, 'chat', 'u', { sessionId: 's' });
    const res = await post(handle, '/run_sse', {
      appName: 'chat',
      userId: 'u',
      sessionId: 's',
      newMessage: message('hi'),
    });
    expect(res.status).toBe(200);
    const body = res.text();
    // The model would answer in 20 s: close() resolving first shows it cancelled the run.
    await handle.close({ gracePeriodMs: 200 });
    const frames = parseFrames(await body);
    expect(frames.at(-1)).toMatchObject({
      errorCode: 'CANCELLED',
      errorMessage: expect.stringMatching(/server shut down/),
    });
    const session = (await (await call(app, 'GET', '/apps/chat/users/u/sessions/s')).json()) as WireSession;
    expect(session.events!.map((e) => e.author)).toEqual(['user', 'assistant']);
    expect(session.events!.at(-1)!.errorCode).toBe('CANCELLED');
  });

  it('while closing, new runs are refused with 503 SERVER_CLOSING', async () => {
    const held = heldReply('last one');
    const app = appWith([held.reply]);
    const handle = await serve(app, { port: 0 });
    await createSession(app, 'chat', 'u', { sessionId: 's' });
    await createSession(app, 'chat', 'u', { sessionId: 't' });
    const running = post(handle, '/run', { appName: 'chat', userId: 'u', sessionId: 's', newMessage: message('hi') });
    await held.started;
    const closed = handle.close({ gracePeriodMs: 60_000 });
    await expectError(
      await call(app, 'POST', '/run', {
        appName: 'chat',
        userId: 'u',
        sessionId: 't',
        newMessage: message('too late'),
      }),
      503,
      'SERVER_CLOSING',
    );
    held.release();
    expect((await running).status).toBe(200);
    await closed;
  });

  it('close() is idempotent', async () => {
    const handle = await serve(appWith([]), { port: 0 });
    await Promise.all([handle.close(), handle.close()]);
    await handle.close();
  });
});
