import {
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  preloadMemoryTool,
  type MemoryService,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RunQueue } from '@troupe/queue';
import { afterEach, expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';

// A worker given a memory service runs the apps with it and adds each session to it after the run,
// so the user's next session (also a background run) recalls it.

const APP = 'assistant';

describeRedis('RunWorker({ memoryService })', () => {
  const redis = useRedis();
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function start(
    memoryService: MemoryService,
    model: ScriptedModel,
    onError?: (error: unknown, context: { during: string }) => void,
  ) {
    const store = new InMemorySessionService();
    const prefix = `m${Math.random().toString(36).slice(2, 8)}`;
    const agent = new LlmAgent({ name: 'Assistant', model, tools: [preloadMemoryTool] });
    const queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    const worker = await startWorker({
      apps: { [APP]: agent },
      sessionService: store,
      memoryService,
      redis: redis().url,
      prefix,
      ...(onError ? { onError } : {}),
    });
    closers.push(
      () => queue.close(),
      () => worker.close({ gracePeriodMs: 0 }),
    );
    const runTurn = async (text: string) => {
      const session = await store.createSession({ appName: APP, userId: 'u1' });
      const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: text });
      for await (const _ of queue.join(run.runId)) {
        // Drained to the run's end.
      }
      return queue.status(run.runId);
    };
    return { runTurn };
  }

  it("adds the session to memory after each run; the next session's model request has it", async () => {
    const memoryService = new InMemoryMemoryService();
    const model = new ScriptedModel(['Noted.', 'Lisbon.']);
    const { runTurn } = await start(memoryService, model);

    expect(await runTurn('My favourite city is Lisbon.')).toMatchObject({ status: 'completed' });
    expect(await runTurn('What is my favourite city?')).toMatchObject({ status: 'completed' });
    expect(model.requests[1]!.config.systemInstruction).toContain('user: My favourite city is Lisbon.');
  });

  it('a failing memory store goes to onError; the run still completes', async () => {
    const failing: MemoryService = {
      addSessionToMemory: async () => {
        throw new Error('memory store is down');
      },
      searchMemory: async () => ({ memories: [] }),
    };
    const errors: string[] = [];
    const { runTurn } = await start(failing, new ScriptedModel(['Hello.']), (error, context) =>
      errors.push(`${context.during}: ${(error as Error).message}`),
    );

    expect(await runTurn('hi')).toMatchObject({ status: 'completed' });
    expect(errors).toEqual([
      expect.stringMatching(/^adding session '.+' of app 'assistant' to memory: memory store is down$/),
    ]);
  });
});
