import { afterEach, describe, expect, it } from 'vitest';
import { FunctionTool, InMemorySessionService, LlmAgent, type LlmRequest } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { createApp, serve, type ServerHandle, type WireEvent, type WireSession } from '../src/index.js';
import { call, createSession, eventually, message, parseFrames } from './helpers.js';

/** An agent that calls a quick tool (two events), then waits 10 s for the model unless aborted, then answers the next turn. */
function slowApp() {
  // Whether the cancelled run got as far as its second model call depends on how far the stream
  // was read, so the reply depends on the turn rather than on the call's position.
  const reply = (request: LlmRequest): ScriptedReply => (JSON.stringify(request.contents).includes('"again"') ? 'Fresh answer.' : { delayMs: 10_000, reply: 'too late' });
  const model = new ScriptedModel([{ functionCalls: [{ name: 'lookup', id: 'l1' }] }, reply, reply]);
  const lookup = new FunctionTool({ name: 'lookup', description: 'Looks up.', execute: () => ({ found: true }) });
  const agent = new LlmAgent({ name: 'slow', model, tools: [lookup] });
  return { app: createApp({ apps: { slow: agent }, sessionService: new InMemorySessionService() }), model };
}

async function expectCancelledThenUsable(app: ReturnType<typeof slowApp>['app'], sessionId: string, started: number) {
  await eventually(async () => {
    const session = (await (await call(app, 'GET', `/apps/slow/users/u/sessions/${sessionId}`)).json()) as WireSession;
    expect(session.events!.at(-1)).toMatchObject({ errorCode: 'CANCELLED', errorMessage: expect.stringMatching(/client disconnected/) });
  });
  // The 10 s model wait was cut short by the abort.
  expect(Date.now() - started).toBeLessThan(5000);
  // The session is not left busy: the next turn runs.
  const res = await call(app, 'POST', '/run', { appName: 'slow', userId: 'u', sessionId, newMessage: message('again') });
  expect(res.status).toBe(200);
  expect(((await res.json()) as WireEvent[]).at(-1)!.content!.parts).toEqual([{ text: 'Fresh answer.' }]);
}

let handle: ServerHandle | undefined;
afterEach(async () => {
  await handle?.close({ gracePeriodMs: 100 });
  handle = undefined;
});

describe('a client that disconnects from an SSE stream', () => {
  it('cancels its run when it stops reading (in process, reader.cancel)', async () => {
    const { app } = slowApp();
    const s = await createSession(app, 'slow', 'u');
    const started = Date.now();
    const res = await call(app, 'POST', '/run_sse', { appName: 'slow', userId: 'u', sessionId: s.id, newMessage: message('go') });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: .*"functionCall"/);
    await reader.cancel();
    await expectCancelledThenUsable(app, s.id, started);
  });

  it("cancels its run when the request's signal aborts, even if nobody reads the stream again", async () => {
    const { app } = slowApp();
    const s = await createSession(app, 'slow', 'u');
    const controller = new AbortController();
    const started = Date.now();
    const res = await call(app, 'POST', '/run_sse', { appName: 'slow', userId: 'u', sessionId: s.id, newMessage: message('go') }, {}, controller.signal);
    await res.body!.getReader().read();
    controller.abort();
    await expectCancelledThenUsable(app, s.id, started);
  });

  it('cancels its run over a real connection (serve on port 0, fetch with an AbortController)', async () => {
    const { app } = slowApp();
    handle = await serve(app, { port: 0 });
    const s = await createSession(app, 'slow', 'u');
    const controller = new AbortController();
    const started = Date.now();
    const res = await fetch(`${handle.url}/run_sse`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ appName: 'slow', userId: 'u', sessionId: s.id, newMessage: message('go') }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('functionResponse')) text += new TextDecoder().decode((await reader.read()).value);
    expect(parseFrames(text).map((e) => e.author)).toEqual(['slow', 'slow']);
    controller.abort();
    await expectCancelledThenUsable(app, s.id, started);
  });

  it('a /run client that disconnects cancels its run too', async () => {
    const { app } = slowApp();
    handle = await serve(app, { port: 0 });
    const s = await createSession(app, 'slow', 'u');
    const controller = new AbortController();
    const started = Date.now();
    const pending = fetch(`${handle.url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ appName: 'slow', userId: 'u', sessionId: s.id, newMessage: message('go') }),
      signal: controller.signal,
    });
    await eventually(async () => {
      const session = (await (await call(app, 'GET', `/apps/slow/users/u/sessions/${s.id}`)).json()) as WireSession;
      expect(session.events!.length).toBe(3);
    });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await expectCancelledThenUsable(app, s.id, started);
  });
});
