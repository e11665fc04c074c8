/**
 * Where the queue keeps things in Redis. Everything sits under one prefix so several deployments can
 * share a Redis, and so `KEYS prefix:*` shows all of it. BullMQ's own keys are `<prefix>:<QUEUE_NAME>:*`.
 */
export const QUEUE_NAME = 'runs';

export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The run's live events (a Redis Stream): entries `e` (an event) and `end` (the run stopped). */
  events(runId: string): string {
    return `${this.prefix}:run:${runId}:events`;
  }

  /** Which attempt may write to the run's stream: a worker that lost the run can no longer publish. */
  owner(runId: string): string {
    return `${this.prefix}:run:${runId}:owner`;
  }

  /** The ids of the workers that announced themselves (some may have stopped since: see `worker`). */
  get workers(): string {
    return `${this.prefix}:workers`;
  }

  /** A worker's sign of life: it expires unless the worker renews it. */
  worker(workerId: string): string {
    return `${this.prefix}:worker:${workerId}`;
  }

  /** Pub/sub channel on which a cancel reaches the worker holding the run. */
  get cancelChannel(): string {
    return `${this.prefix}:cancel`;
  }
}
