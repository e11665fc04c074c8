import type { BackgroundRuns } from '@troupe/server';
import type { SessionStore } from '../session-store.js';
import { redactUrl } from '../redact-url.js';
import { noWorkerLine, untakenLine } from './queue-log.js';
import { checkRunRecords, importQueue, probeRedis } from './queue-support.js';

/** The background-run queue of `troupe api --redis` / `troupe web --redis`, open until `close`. */
export interface BackgroundQueue {
  queue: BackgroundRuns;
  /** The Redis URL without its password, for printing. */
  description: string;
  /** What is wrong with Redis's settings, if anything (an eviction policy that may drop jobs). */
  warning?: string;
  /** Says so when no worker is there yet: runs would wait without a word (issue #28). */
  noWorker?: string;
  close(): Promise<void>;
}

export interface BackgroundQueueOptions {
  /** The agents directory as the user gave it, for the `troupe worker` command the lines suggest. */
  where: string;
  /** Log a queued run no worker has taken this many ms later (0: never). */
  warnUntakenAfterMs: number;
  /** Writes one line of the server console. */
  log: (line: string) => void;
}

/**
 * Opens a `RunQueue` (imported only now: the other commands start without BullMQ) on the server's
 * session store, once Redis answers; a store without run records or a Redis that does not answer
 * is an error naming the flag and the fix. A run no worker takes in time is logged.
 */
export async function openBackgroundQueue(
  redis: string,
  store: SessionStore & { description: string },
  options: BackgroundQueueOptions,
): Promise<BackgroundQueue> {
  checkRunRecords(store.service, store.description);
  const { RunQueue } = await importQueue('--redis');
  const warning = await probeRedis(redis);
  const description = redactUrl(redis);
  const queue = new RunQueue({
    redis,
    sessionService: store.service,
    ...(options.warnUntakenAfterMs > 0
      ? {
          untakenAfterMs: options.warnUntakenAfterMs,
          onUntaken: (run, seen) => options.log(untakenLine(run, seen, options.where)),
        }
      : {}),
  });
  let workers: number;
  try {
    ({ workers } = await queue.checkHealth());
  } catch (error) {
    await queue.close();
    throw error;
  }
  return {
    queue,
    description,
    ...(warning ? { warning } : {}),
    ...(workers === 0 ? { noWorker: noWorkerLine(description, options.where) } : {}),
    close: () => queue.close(),
  };
}
