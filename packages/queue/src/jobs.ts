import type { JobsOptions, Queue } from 'bullmq';

import type { StoredSchedule } from './schedules.js';

/** A job names its run; everything else is in the run record, so a job re-added from the store is the same job. */
export interface RunJobData {
  runId: string;
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
 * Finished jobs stay a while (BullMQ ignores an add whose id exists) and then go, so Redis does not
 * grow with history: the session store keeps that. One attempt: the worker decides what a failure
 * means (crash recovery counts attempts in the run record).
 */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 86_400, count: 10_000 },
};

/**
 * Makes sure the run has a job waiting or running: adds it, or replaces a finished job of the same
 * id (a run resumed after a pause, or one the store says is pending while its job already ended).
 * With `replaceActive`, waits (briefly) for an active job to finish and then replaces it: a resume
 * can come in while the worker that recorded the pause is still completing its job.
 */
export async function ensureJob(queue: Queue<QueueJobData>, runId: string, replaceActive = true): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const job = await queue.getJob(runId);
    if (!job) {
      await queue.add(RUN_JOB, { runId }, { jobId: runId });
      return;
    }
    const state = await job.getState();
    if (state === 'completed' || state === 'failed' || state === 'unknown') {
      await job.remove().catch(() => undefined);
      continue;
    }
    // Waiting, delayed or prioritized: it will run. Active: its worker may be completing it (a resume
    // right after the pause was recorded); once it is done it is replaced.
    if (state !== 'active' || !replaceActive) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the job of run '${runId}' stayed active for 5 s`);
}
