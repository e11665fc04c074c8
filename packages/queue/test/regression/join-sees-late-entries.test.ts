import { FunctionTool, InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RunQueue } from '@troupe/queue';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeRedis, useRedis } from '../redis-server.js';
import { startWorker } from '../start-worker.js';

// Found by queued-adk-confirmation.test.ts failing now and then under load (a resumed /run_sse got no
// frames although the tool ran). A join that reached the pause's end marker with nothing after it
// asked the run's status; when the resumed run wrote its events and ended between that look and the
// answer, the status said 'completed' and the join stopped without reading them. A worker stores a
// run's ending only after its entries reached Redis, so a join that sees the run over now looks once
// more before it stops.

const APP = 'orders';

describeRedis('RunQueue.join after a resume', () => {
  const redis = useRedis();

  it("reads the resumed run's entries written between its look after the pause and the status", async () => {
    const store = new InMemorySessionService();
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const order = new FunctionTool({
      name: 'order',
      description: 'Orders boxes.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const { count } = await ctx.requestInput<{ count: number }>({ message: 'How many boxes?' });
        // Resumed: nothing is published until the join has looked past the pause's end marker.
        await gate;
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
    // The API's handle on the store: once the join follows the resumed run, its next read of the
    // record (the status asked at the pause's end marker) lets the run go on and answers only once
    // the run has ended, as a slow read racing a fast worker would.
    let following = false;
    const api = Object.create(store) as InMemorySessionService;
    api.getRun = async (key) => {
      if (!following) return store.getRun(key);
      openGate();
      const deadline = Date.now() + 10_000;
      while ((await store.getRun(key))?.status !== 'completed') {
        if (Date.now() > deadline) throw new Error('the resumed run did not complete within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return store.getRun(key);
    };
    const queue = new RunQueue({ redis: redis().url, sessionService: api, prefix });
    try {
      const session = await store.createSession({ appName: APP, userId: 'u1' });
      const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'order' });
      for await (const entry of queue.join(run.runId)) expect(entry.event.invocationId).toBe(run.runId);
      const asked = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events.find(
        (e) => e.interrupt,
      )!.interrupt!;
      const before = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events.length;

      await queue.resume({ runId: run.runId, responses: { [asked.id]: { count: 3 } } });
      const joined = queue.join(run.runId);
      const texts: string[] = [];
      const first = await joined.next();
      following = true;
      for (let step = first; !step.done; step = await joined.next()) {
        const part = step.value.event.content?.parts?.[0];
        if (part && 'text' in part) texts.push(part.text);
      }
      const stored = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events;
      expect(stored.length).toBeGreaterThan(before);
      expect(texts.at(-1)).toBe('Ordered.');
    } finally {
      openGate();
      await worker.close({ gracePeriodMs: 0 });
      await queue.close();
    }
  });
});
