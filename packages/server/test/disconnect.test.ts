import { afterEach, describe, expect, it } from 'vitest';
import { serve, type ServerHandle, type TroupeApp, type WireEvent, type WireSession } from '../src/index.js';
import { deferred } from '../../core/test/wait.js';
import { call, createSession, eventually, message } from './helpers.js';
import { relayApp } from './relay-app.js';

// A client that goes away mid-run cancels the run. Each case runs the relay app (first → second →
// third) on a message that makes 'second' slow, disconnects while 'second' works, and then checks
// everything a client of the session relies on: the run ended 'cancelled' with exactly one stored
// CANCELLED event and nothing after it, 'third' never started, and the session takes the next
// message at once (even while a step that ignores the signal is still busy).

type Relay = ReturnType<typeof relayApp>;

let handle: ServerHandle | undefined;
afterEach(async () => {
  await handle?.close({ gracePeriodMs: 100 });
  handle = undefined;
});

function post(path: string, body: unknown, signal: AbortSignal): Promise<Response> {
  return fetch(`${handle!.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

function runBody(sessionId: string, text: string) {
  return { appName: 'relay', userId: 'u', sessionId, newMessage: message(text) };
}

async function storedSession(app: TroupeApp, sessionId: string): Promise<WireSession> {
  return (await (await call(app, 'GET', `/apps/relay/users/u/sessions/${sessionId}`)).json()) as WireSession;
}

/** Waits until the slow step is working, so that the disconnect lands mid-run. */
async function secondIsWorking(relay: Relay): Promise<void> {
  await eventually(() => expect(relay.started).toContain('second:slow go'));
}

async function expectCancelledThenFree(relay: Relay, sessionId: string, reason: RegExp) {
  // The run stopped waiting for the slow step: it would take 10 s, or (ignoring the signal) until released.
  await eventually(() => expect(relay.outcomes).toEqual(['cancelled']));
  const session = await storedSession(relay.app, sessionId);
  const cancelled = session.events!.filter((e) => e.errorCode === 'CANCELLED');
  expect(cancelled).toHaveLength(1);
  expect(session.events!.at(-1)).toEqual(cancelled[0]);
  expect(cancelled[0]!.errorMessage).toMatch(reason);
  expect(session.events!.map((e) => e.author)).toEqual(['user', 'first', cancelled[0]!.author]);
  expect(relay.started).toEqual(['first:slow go', 'second:slow go']);

  // The session is free at once: the next message runs to the end.
  const next = await call(relay.app, 'POST', '/run', runBody(sessionId, 'again'));
  expect(next.status).toBe(200);
  expect(((await next.json()) as WireEvent[]).map((e) => e.content?.parts[0])).toEqual([
    { text: 'first done' },
    { text: 'second done' },
    { text: 'third done' },
  ]);
  expect(relay.outcomes).toEqual(['cancelled', 'completed']);
}

/** Once the slow step has stopped, nothing of the cancelled run started or was stored after it. */
async function expectNothingAfter(relay: Relay, sessionId: string) {
  await relay.secondDone();
  // A window for a 'third' step to start, had the cancelled run gone on after 'second'. It opens
  // after the event (the step stopped), so a busy machine can only make it miss such a bug, never
  // fail a correct server.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(relay.started.filter((s) => s.endsWith(':slow go'))).toEqual(['first:slow go', 'second:slow go']);
  const session = await storedSession(relay.app, sessionId);
  const firstTurn = session.events!.filter((e) => e.invocationId === session.events![0]!.invocationId);
  expect(firstTurn.map((e) => e.errorCode ?? e.author)).toEqual(['user', 'first', 'CANCELLED']);
  expect(session.events!.at(-1)!.content?.parts[0]).toEqual({ text: 'third done' });
}

describe('a client that disconnects mid-run cancels the run (real HTTP server on 127.0.0.1:0)', () => {
  for (const ignoresSignal of [false, true]) {
    const how = ignoresSignal
      ? 'a slow step that ignores the abort signal'
      : 'a slow step that honours the abort signal';

    it(`/run_sse, ${how}`, async () => {
      const held = deferred();
      const relay = relayApp(ignoresSignal ? { ignoresSignalUntil: held.promise } : {});
      handle = await serve(relay.app, { port: 0 });
      const s = await createSession(relay.app, 'relay', 'u');
      const client = new AbortController();
      const res = await post('/run_sse', runBody(s.id, 'slow go'), client.signal);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('first done')) text += new TextDecoder().decode((await reader.read()).value);
      await secondIsWorking(relay);
      client.abort();
      await expectCancelledThenFree(relay, s.id, /client disconnected/);
      if (ignoresSignal) expect(relay.finished).not.toContain('second:slow go');
      held.resolve();
      await expectNothingAfter(relay, s.id);
    });

    it(`/run, ${how}`, async () => {
      const held = deferred();
      const relay = relayApp(ignoresSignal ? { ignoresSignalUntil: held.promise } : {});
      handle = await serve(relay.app, { port: 0 });
      const s = await createSession(relay.app, 'relay', 'u');
      const client = new AbortController();
      const pending = post('/run', runBody(s.id, 'slow go'), client.signal);
      await secondIsWorking(relay);
      client.abort();
      await expect(pending).rejects.toThrow();
      await expectCancelledThenFree(relay, s.id, /client disconnected/);
      if (ignoresSignal) expect(relay.finished).not.toContain('second:slow go');
      held.resolve();
      await expectNothingAfter(relay, s.id);
    });
  }
});

describe('a client that disconnects mid-run cancels the run (in process)', () => {
  it('when it cancels its reader of the /run_sse stream', async () => {
    const relay = relayApp();
    const s = await createSession(relay.app, 'relay', 'u');
    const res = await call(relay.app, 'POST', '/run_sse', runBody(s.id, 'slow go'));
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^data: .*"first done"/);
    await secondIsWorking(relay);
    await reader.cancel();
    await expectCancelledThenFree(relay, s.id, /client disconnected/);
    await expectNothingAfter(relay, s.id);
  });

  it("when the request's signal aborts and nobody reads the stream again", async () => {
    const relay = relayApp();
    const s = await createSession(relay.app, 'relay', 'u');
    const client = new AbortController();
    const res = await call(relay.app, 'POST', '/run_sse', runBody(s.id, 'slow go'), {}, client.signal);
    await res.body!.getReader().read();
    await secondIsWorking(relay);
    client.abort();
    await expectCancelledThenFree(relay, s.id, /client disconnected/);
    await expectNothingAfter(relay, s.id);
  });
});
