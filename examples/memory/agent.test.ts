import { describe, expect, it } from 'vitest';
import {
  InMemoryMemoryService,
  InMemorySessionService,
  Runner,
  getFunctionCalls,
  getFunctionResponses,
  type BaseAgent,
} from '@troupe/core';
import { FakeEmbedder, ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { preloadingAssistant, rootAgent, semanticAssistant } from './agent.js';

/**
 * Two sessions of one user, as an app runs them: the first session is added to memory when it
 * ends, the second (a new session, so its history is empty) asks about it.
 */
async function twoSessions(
  agent: BaseAgent,
  replies: ScriptedReply[],
  second = 'Which city do I like best?',
  memoryService = new InMemoryMemoryService(),
) {
  const model = new ScriptedModel(replies);
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: 'memory',
    agent,
    sessionService,
    memoryService,
    defaultModel: model,
  });

  const first = await sessionService.createSession({ appName: 'memory', userId: 'ana' });
  await runner.run({ userId: 'ana', sessionId: first.id, newMessage: 'Remember this: my favourite city is Lisbon.' });
  await runner.memoryService!.addSessionToMemory(
    (await sessionService.getSession({ appName: 'memory', userId: 'ana', sessionId: first.id }))!,
  );

  const next = await sessionService.createSession({ appName: 'memory', userId: 'ana' });
  const result = await runner.run({ userId: 'ana', sessionId: next.id, newMessage: second });
  model.assertDone();
  return { model, result };
}

describe('memory example', () => {
  it('Assistant: in a new session the model calls load_memory, and its next request carries the remembered city', async () => {
    const { model, result } = await twoSessions(rootAgent, [
      "I'll remember that Lisbon is your favourite city.",
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' } }] },
      'Your favourite city is Lisbon.',
    ]);

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Your favourite city is Lisbon.');
    expect(result.events.flatMap(getFunctionCalls).map((c) => c.args)).toEqual([{ query: 'favourite city' }]);
    const [found] = result.events.flatMap(getFunctionResponses);
    expect(
      (found!.response.memories as { content: string; author: string }[]).map((m) => `${m.author}: ${m.content}`),
    ).toEqual(
      expect.arrayContaining([
        'user: Remember this: my favourite city is Lisbon.',
        "Assistant: I'll remember that Lisbon is your favourite city.",
      ]),
    );

    // The second session's history holds only its own question; the fact came from memory.
    const [, asking, answering] = model.requests;
    expect(JSON.stringify(asking!.contents)).not.toContain('Lisbon');
    expect(asking!.config.systemInstruction).toContain('call the load_memory function');
    expect(JSON.stringify(answering!.contents)).toContain('Remember this: my favourite city is Lisbon.');
  });

  it("PreloadingAssistant: the new session's first model request has the remembered city in its system instruction", async () => {
    const { model, result } = await twoSessions(
      preloadingAssistant,
      ['Noted: Lisbon is your favourite city.', 'Lisbon!'],
      'What is my favourite city?',
    );

    expect(result.output).toBe('Lisbon!');
    const request = model.requests[1]!;
    expect(JSON.stringify(request.contents)).not.toContain('Lisbon');
    expect(request.config.systemInstruction).toContain('<PAST_CONVERSATIONS>');
    expect(request.config.systemInstruction).toContain('user: Remember this: my favourite city is Lisbon.');
    expect(request.config.tools).toBeUndefined();
  });

  it("another user's session never reaches the model", async () => {
    const model = new ScriptedModel([
      'Noted.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' } }] },
      'I do not know yet.',
    ]);
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'memory',
      agent: rootAgent,
      sessionService,
      memoryService: new InMemoryMemoryService(),
      defaultModel: model,
    });
    const ana = await sessionService.createSession({ appName: 'memory', userId: 'ana' });
    await runner.run({ userId: 'ana', sessionId: ana.id, newMessage: 'Remember this: my favourite city is Lisbon.' });
    await runner.memoryService!.addSessionToMemory(
      (await sessionService.getSession({ appName: 'memory', userId: 'ana', sessionId: ana.id }))!,
    );

    const ben = await sessionService.createSession({ appName: 'memory', userId: 'ben' });
    const result = await runner.run({ userId: 'ben', sessionId: ben.id, newMessage: 'What is my favourite city?' });
    expect(result.events.flatMap(getFunctionResponses)[0]!.response).toEqual({ memories: [] });
    expect(JSON.stringify(model.requests[2])).not.toContain('Lisbon');
  });

  it('SemanticAssistant: "which town do I like?" recalls the favourite city by meaning (an embedder), which keyword search misses', async () => {
    const replies = (): ScriptedReply[] => [
      'Noted.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'which town do I like' } }] },
      'You like Lisbon.',
    ];
    const semantic = await twoSessions(
      semanticAssistant,
      replies(),
      'Which town do I like?',
      new InMemoryMemoryService({ embedder: new FakeEmbedder() }),
    );
    const [found] = semantic.result.events.flatMap(getFunctionResponses);
    expect((found!.response.memories as { content: string }[]).map((m) => m.content)).toContain(
      'Remember this: my favourite city is Lisbon.',
    );

    // The keyword assistant's search shares no word with the memory: it finds nothing.
    const keyword = await twoSessions(rootAgent, replies(), 'Which town do I like?');
    expect(keyword.result.events.flatMap(getFunctionResponses)[0]!.response).toEqual({ memories: [] });
  });
});
