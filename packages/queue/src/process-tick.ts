import { ConfigurationError, InvocationExistsError, SessionBusyError, type SessionService } from '@troupe/core';
import type { Job } from 'bullmq';
import type { TickJobData } from './jobs.js';
import type { RunQueue } from './run-queue.js';

/**
 * A schedule's tick: enqueues its run, with a run id (and, per-run sessions, a session id) derived
 * from the tick's job id, so a tick taken twice (a crash right after enqueueing) still runs once.
 */
export async function processTickJob(queue: RunQueue, sessions: SessionService, job: Job<TickJobData>): Promise<void> {
  const { schedule } = job.data;
  // Job ids of ticks look like `repeat:<schedule>:<due time>`; run ids cannot hold ':'.
  const tick = String(job.id).replace(/[^A-Za-z0-9._-]/g, '.');
  const runId = `tick.${tick}`.slice(0, 128);
  const sessionId = schedule.sessionId ?? `session.${tick}`.slice(0, 128);
  // A schedule's own session is made on its first tick; a per-run one on each.
  const key = { appName: schedule.appName, userId: schedule.userId, sessionId };
  if (!(await sessions.getSession({ ...key, numRecentEvents: 0 }))) {
    await sessions.createSession(key).catch(async (error: unknown) => {
      // Created by another take of a tick between the check and here.
      if (!(error instanceof ConfigurationError) || !(await sessions.getSession({ ...key, numRecentEvents: 0 })))
        throw error;
    });
  }
  try {
    await queue.enqueue({
      appName: schedule.appName,
      userId: schedule.userId,
      sessionId,
      runId,
      multitaskStrategy: schedule.multitaskStrategy,
      ...(schedule.newMessage !== undefined ? { newMessage: schedule.newMessage } : {}),
      ...(schedule.input !== undefined ? { input: schedule.input } : {}),
    });
  } catch (error) {
    // Already enqueued by an earlier take of this tick; or, with 'reject', the session's previous
    // run still goes on and this tick is skipped.
    if (error instanceof InvocationExistsError || error instanceof SessionBusyError) return;
    throw error;
  }
}
