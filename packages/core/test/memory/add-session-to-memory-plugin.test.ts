import { describe, expect, it } from 'vitest';
import {
  AddSessionToMemoryPlugin,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  preloadMemoryTool,
  type MemoryService,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

async function twoSessions(memoryService: MemoryService | undefined, plugin: AddSessionToMemoryPlugin) {
  const model = new ScriptedModel(['Noted.', 'Lisbon.']);
  const sessionService = new InMemorySessionService();
  const agent = new LlmAgent({ name: 'helper', model, tools: memoryService ? [preloadMemoryTool] : [] });
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService,
    plugins: [plugin],
    ...(memoryService ? { memoryService } : {}),
  });
  const first = await sessionService.createSession({ appName: 'app', userId: 'u' });
  const one = await runner.run({ userId: 'u', sessionId: first.id, newMessage: 'My favourite city is Lisbon.' });
  const second = await sessionService.createSession({ appName: 'app', userId: 'u' });
  const two = await runner.run({ userId: 'u', sessionId: second.id, newMessage: 'What is my favourite city?' });
  return { model, one, two, first };
}

describe('AddSessionToMemoryPlugin', () => {
  it('adds the session to memory at the end of each run, so the next session recalls it', async () => {
    const memoryService = new InMemoryMemoryService();
    const { model, one, first } = await twoSessions(memoryService, new AddSessionToMemoryPlugin());

    expect(one.status).toBe('completed');
    expect(model.requests[1]!.config.systemInstruction).toContain('user: My favourite city is Lisbon.');
    const { memories } = await memoryService.searchMemory({ appName: 'app', userId: 'u', query: 'Noted' });
    expect(memories).toEqual([
      expect.objectContaining({ author: 'helper', content: { role: 'model', parts: [{ text: 'Noted.' }] } }),
    ]);
    expect(first.id).toEqual(expect.any(String));
  });

  it('leaves a runner without a memory service alone', async () => {
    const { one, two } = await twoSessions(undefined, new AddSessionToMemoryPlugin());
    expect([one.status, two.status]).toEqual(['completed', 'completed']);
  });

  it('a failing memory store goes to onError, and the run keeps its result', async () => {
    const failing: MemoryService = {
      addSessionToMemory: async () => {
        throw new Error('memory store is down');
      },
      searchMemory: async () => ({ memories: [] }),
    };
    const errors: string[] = [];
    const { one, first } = await twoSessions(
      failing,
      new AddSessionToMemoryPlugin({
        onError: (error, session) => errors.push(`${session.id}: ${(error as Error).message}`),
      }),
    );

    expect(one.status).toBe('completed');
    expect(one.output).toBe('Noted.');
    expect(errors[0]).toBe(`${first.id}: memory store is down`);
    expect(errors).toHaveLength(2);
  });

  it('without onError, runAsync throws the failure after the run is stored; run keeps its result', async () => {
    const failing: MemoryService = {
      addSessionToMemory: async () => {
        throw new Error('memory store is down');
      },
      searchMemory: async () => ({ memories: [] }),
    };
    const { one } = await twoSessions(failing, new AddSessionToMemoryPlugin());
    expect(one.status).toBe('completed');

    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'helper', model: new ScriptedModel(['Hi.']) }),
      sessionService,
      memoryService: failing,
      plugins: [new AddSessionToMemoryPlugin()],
    });
    const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of runner.runAsync({ userId: 'u', sessionId: session.id, newMessage: 'hello' }))
          seen.push(event.author);
      })(),
    ).rejects.toThrow('memory store is down');
    expect(seen).toEqual(['helper']);
    expect(
      (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events,
    ).toHaveLength(2);
  });
});
