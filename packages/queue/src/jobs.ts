import type { SessionKey } from '@troupe/core';
import type { JobsOptions, Queue, QueueOptions } from 'bullmq';

import type { StoredSchedule } from './schedules.js';

/**
 * A job names its run and the run's session; everything else is in the run record, so a job
 * re-added from the store is the same job. With the session, the worker reads the run and the
 * session's other active runs (to take them in order) in one look; a job queued without it (by an
 * earlier version) is read in two.
 */
export interface RunJobData {
  runId: string;
  session?: SessionKey;
}

/** A schedule's tick: the worker that takes it enqueues the tick's run. */
export interface TickJobData {
  schedule: StoredSchedule;
}

export type QueueJobData = RunJobData | TickJobData;

/** Name of a run's job. */
export const RUN_JOB = 'run';
/** Name of a schedule's tick jobs. */
export const TICK_JOB = 'tick';

/**
 * A finished job goes at once: the run record says how the run ended (and a job added again for a
 * finished run does nothing), so Redis holds only work in progress. A job that failed outside any
 * run (a worker losing Redis mid-job) stays a day for inspection; the sweeper replaces it if its run
 * is still due. One attempt: the worker decides what a failure means (crash recovery counts attempts
 * in the run record).
 */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: { age: 86_400, count: 1_000 },
};

/** Runs one Redis operation: as it is, or within a bound (the API side's, see redis-gate.ts). */
export type RedisCall = <T>(operation: () => Promise<T>) => Promise<T>;

/**
 * Makes sure the run has a job waiting or running: adds it, or replaces a finished job of the same
 * id (a run resumed after a pause, or one the store says is pending while its job already ended).
 * With `replaceActive`, waits (briefly) for an active job to finish and then replaces it: a resume
 * can come in while the worker that recorded the pause is still completing its job. `call` runs
 * each Redis operation (so a bound applies to each, not to the wait).
 */
export async function ensureJob(
  queue: Queue<QueueJobData>,
  data: RunJobData,
  replaceActive = true,
  call: RedisCall = (operation) => operation(),
): Promise<void> {
  const { runId } = data;
  for (let tries = 0; tries < 100; tries++) {
    const job = await call(() => queue.getJob(runId));
    if (!job) {
      await call(() => queue.add(RUN_JOB, data, { jobId: runId }));
      return;
    }
    const state = await call(() => job.getState());
    if (state === 'completed' || state === 'failed' || state === 'unknown') {
      await call(() => job.remove()).catch(() => undefined);
      continue;
    }
    // Waiting, delayed or prioritized: it will run. Active: its worker may be completing it (a resume
    // right after the pause was recorded); once it is done it is replaced.
    if (state !== 'active' || !replaceActive) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the job of run '${runId}' stayed active for 5 s`);
}

/**
 * Options of every BullMQ queue object of ours. BullMQ's own event log (a stream we do not read:
 * our runs have streams of their own) is kept short so it does not hold memory for nothing.
 */
export function queueOptions(connection: QueueOptions['connection'], prefix: string): QueueOptions {
  return { connection, prefix, defaultJobOptions: JOB_OPTIONS, streams: { events: { maxLen: 100 } } };
}
