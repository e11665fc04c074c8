import type { BackgroundRuns } from '@troupe/server';
import type { SessionStore } from '../session-store.js';
import { redactUrl } from '../redact-url.js';
import { checkRunRecords, importQueue, probeRedis } from './queue-support.js';

/** The background-run queue of `troupe api --redis` / `troupe web --redis`, open until `close`. */
export interface BackgroundQueue {
  queue: BackgroundRuns;
  /** The Redis URL without its password, for printing. */
  description: string;
  /** What is wrong with Redis's settings, if anything (an eviction policy that may drop jobs). */
  warning?: string;
  close(): Promise<void>;
}

/**
 * Opens a `RunQueue` (imported only now: the other commands start without BullMQ) on the server's
 * session store, once Redis answers; a store without run records or a Redis that does not answer
 * is an error naming the flag and the fix.
 */
export async function openBackgroundQueue(
  redis: string,
  store: SessionStore & { description: string },
): Promise<BackgroundQueue> {
  checkRunRecords(store.service, store.description);
  const { RunQueue } = await importQueue('--redis');
  const warning = await probeRedis(redis);
  const queue = new RunQueue({ redis, sessionService: store.service });
  return { queue, description: redactUrl(redis), ...(warning ? { warning } : {}), close: () => queue.close() };
}
