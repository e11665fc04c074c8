import { describe, expect, it } from 'vitest';
import {
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  loadMemoryTool,
  preloadMemoryTool,
  type MemoryService,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, type WireEvent } from '../src/index.js';
import { call, message, readSse } from './helpers.js';

const ALICE = { Authorization: 'Bearer alice-token' };
const BOB = { Authorization: 'Bearer bob-token' };
const tokens = { 'alice-token': 'alice', 'bob-token': 'bob' };

/** An app whose assistant has both memory tools, served with memory and bearer-token auth. */
function memoryApp(replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const model = new ScriptedModel(replies);
  const agent = new LlmAgent({
    name: 'assistant',
    model,
    instruction: 'Help.',
    tools: [loadMemoryTool, preloadMemoryTool],
  });
  const memoryService = new InMemoryMemoryService();
  const app = createApp({
    apps: { assistant: agent },
    sessionService: new InMemorySessionService(),
    memoryService,
    auth: { tokens },
  });
  return { app, model, memoryService };
}

async function turn(
  app: ReturnType<typeof createApp>,
  user: string,
  headers: Record<string, string>,
  text: string,
  sse = false,
): Promise<WireEvent[]> {
  const created = await call(app, 'POST', `/apps/assistant/users/${user}/sessions`, {}, headers);
  expect(created.status).toBe(200);
  const { id } = (await created.json()) as { id: string };
  const body = { appName: 'assistant', userId: user, sessionId: id, newMessage: message(text) };
  if (sse) return (await readSse(await call(app, 'POST', '/run_sse', body, headers))).events;
  const res = await call(app, 'POST', '/run', body, headers);
  expect(res.status).toBe(200);
  return (await res.json()) as WireEvent[];
}

describe('memory over HTTP', () => {
  it("a session is added to memory after its run; user A's fact never reaches user B's model requests, through load_memory or preload", async () => {
    const { app, model, memoryService } = memoryApp([
      'Noted.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' }, id: 'b1' }] },
      'I do not know your favourite city yet.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' }, id: 'a1' }] },
      'Your favourite city is Lisbon.',
    ]);

    await turn(app, 'alice', ALICE, 'My favourite city is Lisbon.');
    expect(
      (await memoryService.searchMemory({ appName: 'assistant', userId: 'alice', query: 'Lisbon' })).memories,
    ).toHaveLength(1);

    const bob = await turn(app, 'bob', BOB, 'What is my favourite city?', true);
    const bobRequests = model.requests.slice(1, 3);
    expect(bobRequests).toHaveLength(2);
    for (const request of bobRequests) expect(JSON.stringify(request)).not.toContain('Lisbon');
    const bobResponse = bob.flatMap((e) => e.content?.parts ?? []).find((p) => 'functionResponse' in p);
    expect(bobResponse).toMatchObject({ functionResponse: { name: 'load_memory', response: { memories: [] } } });

    // Alice, in a new session, gets her fact back both ways: preloaded into the instruction, and from load_memory.
    await turn(app, 'alice', ALICE, 'What is my favourite city?');
    const [asking, answering] = model.requests.slice(3);
    expect(asking!.config.systemInstruction).toContain('user: My favourite city is Lisbon.');
    expect(JSON.stringify(answering!.contents)).toContain('My favourite city is Lisbon.');
    model.assertDone();
  });

  it("Bob cannot run in Alice's session to read her memory (403)", async () => {
    const { app } = memoryApp(['Noted.']);
    await turn(app, 'alice', ALICE, 'My favourite city is Lisbon.');
    const res = await call(
      app,
      'POST',
      '/run',
      { appName: 'assistant', userId: 'alice', sessionId: 'x', newMessage: message('What is my favourite city?') },
      BOB,
    );
    expect(res.status).toBe(403);
  });

  it('a memory store that fails after a run is reported to onError; the answer is still sent and stored', async () => {
    const failing: MemoryService = {
      addSessionToMemory: async () => {
        throw new Error('memory store is down');
      },
      searchMemory: async () => ({ memories: [] }),
    };
    const errors: unknown[] = [];
    const sessionService = new InMemorySessionService();
    const agent = new LlmAgent({ name: 'assistant', model: new ScriptedModel(['Hello.']) });
    const app = createApp({
      apps: { assistant: agent },
      sessionService,
      memoryService: failing,
      onError: (error) => errors.push(error),
    });
    await call(app, 'POST', '/apps/assistant/users/u/sessions', { sessionId: 's' });

    const events = (await (
      await call(app, 'POST', '/run', { appName: 'assistant', userId: 'u', sessionId: 's', newMessage: message('hi') })
    ).json()) as WireEvent[];
    expect(events[0]!.content!.parts).toEqual([{ text: 'Hello.' }]);
    expect(events.at(-1)!.errorCode).toBe('INTERNAL');
    expect(errors.map((e) => (e as Error).message)).toEqual(['memory store is down']);
    expect(
      (await sessionService.getSession({ appName: 'assistant', userId: 'u', sessionId: 's' }))!.events.map(
        (e) => e.author,
      ),
    ).toEqual(['user', 'assistant']);
  });
});
