import { FunctionAgent, InMemorySessionService } from '@troupe/core';
import { RunQueue } from '@troupe/queue';
import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../redis-server.js';
import { startWorker } from '../start-worker.js';

// Issue #28: a run queued before its worker started could run and end while `RunQueue.checkHealth`
// (the API's /health) still counted no worker. BullMQ's Worker takes jobs as soon as it is built, and
// RunWorker.start announced the worker only after that, so the run sometimes came before the
// presence. A worker is now counted before it takes its first run. The old order lost that race in
// about one start in ten here (no hook can force it), so the test starts a worker ROUNDS times, each
// with a run already waiting: the old code passes all of them about once in two hundred tries.

const APP = 'probe';
const ROUNDS = 50;

describeRedis('a worker is counted before it takes its first run', () => {
  const redis = useRedis();

  it('a run queued before its worker started sees that worker counted while it runs', async () => {
    const store = new InMemorySessionService();
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    const queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    const counted: number[] = [];
    const probe = new FunctionAgent({
      name: 'Probe',
      run: async () => {
        counted.push((await queue.checkHealth()).workers);
        return 'checked';
      },
    });
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const session = await store.createSession({ appName: APP, userId: 'u1' });
        const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'go' });
        // The previous round's worker retired when it closed.
        expect(await queue.checkHealth()).toEqual({ workers: 0 });
        const worker = await startWorker({ apps: { [APP]: probe }, sessionService: store, redis: redis().url, prefix });
        try {
          for await (const entry of queue.join(run.runId)) expect(entry.event.invocationId).toBe(run.runId);
          expect((await queue.status(run.runId)).status).toBe('completed');
        } finally {
          await worker.close({ gracePeriodMs: 0 });
        }
      }
      // Each run saw its own worker, and only it.
      expect({ runs: counted.length, notCounted: counted.filter((workers) => workers !== 1).length }).toEqual({
        runs: ROUNDS,
        notCounted: 0,
      });
    } finally {
      await queue.close();
    }
  });
});
