import { FunctionAgent, InMemorySessionService } from '@troupe/core';
import { RunQueue } from '@troupe/queue';
import { expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';

// What a worker reads before it runs a job (issue #34): every read is a round trip to the store on
// every run. The job names the run's session, so one look at the session's active runs gives the
// run and whether an earlier one goes first.

const APP = 'echo';

describeRedis('RunWorker: the reads before a run', () => {
  const redis = useRedis();

  it('reads the run and its turn in one look at the session, and still takes runs in order', async () => {
    const store = new InMemorySessionService();
    const calls: string[] = [];
    const counted = Object.create(store) as InMemorySessionService;
    counted.getRun = (key) => {
      calls.push('getRun');
      return store.getRun(key);
    };
    counted.listRuns = (filter) => {
      calls.push(filter.statuses?.includes('running') ? 'listRuns(active)' : 'listRuns');
      return store.listRuns(filter);
    };
    const order: string[] = [];
    const echo = new FunctionAgent({
      name: 'Echo',
      run: async (input) => {
        order.push(String(input.request));
        return `echo ${String(input.request)}`;
      },
    });
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    const queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    const session = await store.createSession({ appName: APP, userId: 'u' });
    // Two runs of one session queued before any worker: the second waits for the first.
    const first = await queue.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: 'one' });
    const second = await queue.enqueue({
      appName: APP,
      userId: 'u',
      sessionId: session.id,
      newMessage: 'two',
      multitaskStrategy: 'enqueue',
    });
    const worker = await startWorker({ apps: { [APP]: echo }, sessionService: counted, redis: redis().url, prefix });
    try {
      for await (const entry of queue.join(first.runId)) expect(entry.event.invocationId).toBe(first.runId);
      for await (const entry of queue.join(second.runId)) expect(entry.event.invocationId).toBe(second.runId);
      expect(order).toEqual(['one', 'two']);
      expect((await queue.status(second.runId)).status).toBe('completed');
      // No read of a run record by id: the session's active runs, looked at once per job taken
      // (and once after each run, for the session's next run).
      expect(calls).not.toContain('getRun');
      expect(calls.filter((c) => c === 'listRuns(active)').length).toBeGreaterThanOrEqual(2);
    } finally {
      await worker.close({ gracePeriodMs: 0 });
      await queue.close();
    }
  });
});
