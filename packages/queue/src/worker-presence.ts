import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys.js';

/**
 * Workers announce themselves in Redis, so that the API side can say whether any is there (issue
 * #28: `troupe api --redis` with no worker left runs waiting and said nothing). Each worker renews a
 * key of its own every {@link PRESENCE_INTERVAL_MS}; the key expires {@link PRESENCE_TTL_MS} after
 * the last renewal, so a worker that was killed stops counting without anyone's clock involved.
 */
export const PRESENCE_INTERVAL_MS = 5_000;
export const PRESENCE_TTL_MS = 3 * PRESENCE_INTERVAL_MS;

/** What a worker says of itself. */
export interface WorkerPresence {
  id: string;
  host: string;
  pid: number;
  apps: string[];
  concurrency: number;
  /** Runs in progress on it when it last renewed. */
  running: number;
}

/** Writes (or renews) the worker's sign of life. */
export async function announce(redis: Redis, keys: RedisKeys, presence: WorkerPresence): Promise<void> {
  await redis
    .multi()
    .set(keys.worker(presence.id), JSON.stringify(presence), 'PX', PRESENCE_TTL_MS)
    .sadd(keys.workers, presence.id)
    .exec();
}

/** Removes the worker's sign of life (it stops); gives up after `timeoutMs` (it then expires on its own). */
export async function retire(redis: Redis, keys: RedisKeys, workerId: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const removal = redis.multi().del(keys.worker(workerId)).srem(keys.workers, workerId).exec();
  removal.catch(() => undefined);
  try {
    await Promise.race([
      removal,
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The workers whose sign of life has not expired; the ids of the others are forgotten on the way. */
export async function workersSeen(redis: Redis, keys: RedisKeys): Promise<WorkerPresence[]> {
  const ids = await redis.smembers(keys.workers);
  if (ids.length === 0) return [];
  const values = await redis.mget(ids.map((id) => keys.worker(id)));
  const gone = ids.filter((_id, i) => values[i] === null);
  if (gone.length > 0) await redis.srem(keys.workers, ...gone);
  return values.filter((value): value is string => value !== null).map((value) => JSON.parse(value) as WorkerPresence);
}
