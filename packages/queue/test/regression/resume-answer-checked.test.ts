import { FunctionTool, InMemorySessionService, InterruptResponseError, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RunQueue } from '@troupe/queue';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeRedis, useRedis } from '../redis-server.js';
import { startWorker } from '../start-worker.js';

// Found through the OpenAI endpoint (issue #30): RunQueue.resume put a run back on the queue with
// whatever answers it was given. An answer the worker then refused (one that does not match the
// request's responseSchema) failed the run, so the question could never be answered again. The
// queue now checks the answers against the run's open interrupts first, as the runner does: a
// wrong answer is refused and the run stays paused, waiting for a right one.

const APP = 'orders';

describeRedis('RunQueue.resume checks the answers before it queues the run', () => {
  const redis = useRedis();

  it('a wrong answer is refused and the run stays interrupted; a right one finishes it', async () => {
    const store = new InMemorySessionService();
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    const queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    const order = new FunctionTool({
      name: 'order',
      description: 'Orders boxes.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const { count } = await ctx.requestInput<{ count: number }>({
          message: 'How many boxes?',
          responseSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
        });
        return { ordered: count };
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'order', args: {}, id: 'c1' }] }, 'Ordered.']);
    const worker = await startWorker({
      apps: { [APP]: new LlmAgent({ name: 'Clerk', model, tools: [order] }) },
      sessionService: store,
      redis: redis().url,
      prefix,
    });
    try {
      const session = await store.createSession({ appName: APP, userId: 'u1' });
      const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'order' });
      for await (const entry of queue.join(run.runId)) expect(entry.event.invocationId).toBe(run.runId);
      expect((await queue.status(run.runId))?.status).toBe('interrupted');
      const asked = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events.find(
        (e) => e.interrupt,
      )!.interrupt!;

      const wrong = queue.resume({ runId: run.runId, responses: { [asked.id]: { count: 'many' } } });
      await expect(wrong).rejects.toBeInstanceOf(InterruptResponseError);
      await expect(wrong).rejects.toThrow(/does not match its responseSchema/);
      await expect(queue.resume({ runId: run.runId, responses: { 'no-such-id': 1 } })).rejects.toThrow(
        /no open interrupt 'no-such-id'/,
      );
      expect((await queue.status(run.runId))?.status).toBe('interrupted');

      await queue.resume({ runId: run.runId, responses: { [asked.id]: { count: 3 } } });
      for await (const entry of queue.join(run.runId)) expect(entry.event.invocationId).toBe(run.runId);
      expect((await queue.status(run.runId))?.status).toBe('completed');
      const events = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events;
      expect(events.at(-1)!.content?.parts).toEqual([{ text: 'Ordered.' }]);
    } finally {
      await worker.close({ gracePeriodMs: 0 });
      await queue.close();
    }
  });
});
