import { afterEach, describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, serve, type ServerHandle, type WireSession } from '../src/index.js';
import { parseFrames, runBody } from './helpers.js';

// serve()'s `overrideGlobalObjects` (what `troupe api` uses): the Node adapter's lightweight
// Request/Response become the process's globals. Its own file: the globals stay replaced after.
const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

function chatApp() {
  const agent = new LlmAgent({ name: 'assistant', model: new ScriptedModel(['Hello!', 'Again!']) });
  return createApp({ apps: { chat: agent }, sessionService: new InMemorySessionService() });
}

async function newSession(handle: ServerHandle): Promise<WireSession> {
  const res = await fetch(`${handle.url}/apps/chat/users/u/sessions`, { method: 'POST' });
  return (await res.json()) as WireSession;
}

describe('serve({ overrideGlobalObjects })', () => {
  it('leaves the globals alone by default', async () => {
    const before = globalThis.Response;
    handles.push(await serve(chatApp(), { port: 0 }));
    expect(globalThis.Response).toBe(before);
  });

  it('with the lightweight globals, JSON answers, SSE streams and errors are the same', async () => {
    const before = globalThis.Response;
    const handle = await serve(chatApp(), { port: 0, overrideGlobalObjects: true });
    handles.push(handle);
    expect(globalThis.Response).not.toBe(before);
    const session = await newSession(handle);
    const post = (path: string, body: unknown) =>
      fetch(`${handle.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const run = await post('/run', runBody(session, 'hi'));
    expect(run.status).toBe(200);
    const events = (await run.json()) as { author: string; content?: { parts: { text?: string }[] } }[];
    expect(events.at(-1)!.content!.parts[0]!.text).toBe('Hello!');

    const sse = await post('/run_sse', runBody(session, 'again'));
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = parseFrames(await sse.text());
    expect(frames.at(-1)!.content!.parts[0]!).toMatchObject({ text: 'Again!' });

    const bad = await post('/run', { appName: 'chat' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: expect.any(String) } });
  });
});
