/**
 * Background runs on worker processes through BullMQ on Redis (SPEC §13): `RunQueue` on the API side
 * (enqueue, join, status, cancel, schedules), `RunWorker` on the workers. The session store stays the
 * only record of what a run did; Redis holds the jobs and the live event streams.
 * @packageDocumentation
 */
export { RunQueue, type RunQueueOptions } from './run-queue.js';
export { RunWorker, type RunWorkerOptions } from './run-worker.js';
export { RunNotFoundError, QueueUnavailableError } from './errors.js';
export type { RedisConnection } from './redis-connection.js';
export type { RunReport } from './run-report.js';
export type { UntakenListener } from './untaken-watch.js';
// The contract's types live in @troupe/core (the server serves it without depending on the queue).
export type {
  BackgroundRuns,
  EnqueueParams,
  EnqueueResumeParams,
  JoinOptions,
  MultitaskStrategy,
  RunInfo,
  ScheduleInfo,
  ScheduleParams,
  StreamEntry,
} from '@troupe/core/hosting';
