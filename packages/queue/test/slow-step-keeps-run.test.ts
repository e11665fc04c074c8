import { FunctionAgent, InMemorySessionService } from '@troupe/core';
import { RunQueue, type RunReport } from '@troupe/queue';
import { expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';

// A short lock makes a dead worker's run free again soon; it must not make a merely slow one look
// dead. A step that awaits something for several locks (a slow tool call) leaves the event loop
// running, and with it BullMQ's lock renewal and the session lease's: the run stays where it is.

const APP = 'slow';
const LOCK_MS = 1_000;
const STEP_MS = 4 * LOCK_MS;

describeRedis('a worker awaiting a slow step keeps its run', () => {
  const redis = useRedis();

  it('a step awaiting four locks runs once, on one worker, with no takeover', async () => {
    const store = new InMemorySessionService();
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    const queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    const executions: string[] = [];
    const reports: { worker: string; report: RunReport }[] = [];
    const slow = new FunctionAgent({
      name: 'Slow',
      run: async (_input, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, STEP_MS));
        executions.push(ctx.invocationId);
        return 'done';
      },
    });
    const options = (worker: string) => ({
      apps: { [APP]: slow },
      sessionService: store,
      redis: redis().url,
      prefix,
      lockDurationMs: LOCK_MS,
      onRun: (report: RunReport) => reports.push({ worker, report }),
    });
    // Two workers: the idle one looks for stalled runs every half lock and would take this one over.
    const workers = [await startWorker(options('a')), await startWorker(options('b'))];
    try {
      const session = await store.createSession({ appName: APP, userId: 'u1' });
      const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'go' });
      for await (const entry of queue.join(run.runId)) expect(entry.event.invocationId).toBe(run.runId);
      const status = await queue.status(run.runId);
      expect({ status: status.status, attempts: status.attempts }).toEqual({ status: 'completed', attempts: 1 });
      expect(executions).toEqual([run.runId]);
      const started = reports.filter(({ report }) => report.kind === 'started');
      expect(started).toHaveLength(1);
      expect(started[0]!.report).toMatchObject({ kind: 'started', takeover: false });
      expect(reports.map(({ report }) => report.kind)).toEqual(['started', 'ended']);
      expect(new Set(reports.map(({ worker }) => worker)).size).toBe(1);
    } finally {
      await Promise.all(workers.map((worker) => worker.close({ gracePeriodMs: 0 })));
      await queue.close();
    }
  });
});
