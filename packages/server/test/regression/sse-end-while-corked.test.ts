import { afterEach, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, serve, type ServerHandle } from '../../src/index.js';
import { message, parseFrames } from '../helpers.js';

// On Node 22 and 24, a response ended while its socket is corked loses what was written in that turn
// when the connection was used before (keep-alive): the client saw a 200 `/run_sse` with an empty body.
// Node 20 sent it. A quick run's frames and its end are written in one corked turn, so this hit every
// streamed run on a reused connection.

const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close({ gracePeriodMs: 100 })));
});

it('a /run_sse answer on a kept-alive connection carries its frames', async () => {
  const agent = new LlmAgent({ name: 'assistant', model: new ScriptedModel(['Hi!', 'Again!']) });
  const handle = await serve(createApp({ apps: { chat: agent }, sessionService: new InMemorySessionService() }), {
    port: 0,
  });
  handles.push(handle);
  const post = (path: string, body: unknown) =>
    fetch(`${handle.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  // fetch keeps the connection alive, so the runs below reuse it.
  await (await fetch(`${handle.url}/health`)).json();
  await (await post('/apps/chat/users/u/sessions', { sessionId: 's' })).json();
  for (const reply of ['Hi!', 'Again!']) {
    const res = await post('/run_sse', { appName: 'chat', userId: 'u', sessionId: 's', newMessage: message('hi') });
    expect(parseFrames(await res.text()).map((event) => event.content?.parts)).toEqual([[{ text: reply }]]);
  }
});
