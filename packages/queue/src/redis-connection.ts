import { ConfigurationError } from '@troupe/core';
import { Redis, type RedisOptions } from 'ioredis';

/** How to reach Redis: a `redis://` URL, ioredis options, or a connected ioredis client (reused, never closed by us). */
export type RedisConnection = string | RedisOptions | Redis;

/**
 * How a connection behaves while Redis is away. A worker's (`'worker'`) waits through a reconnect, as
 * BullMQ's blocking commands need (`maxRetriesPerRequest: null`). The API side's (`'api'`) answers
 * HTTP requests, which must not hang: a command fails at once when the connection is down (no
 * offline queue) and when it drops (no retry), and the queue answers 503 (issue #28).
 */
export type RedisRole = 'api' | 'worker';

const ROLE_OPTIONS: Readonly<Record<RedisRole, RedisOptions>> = {
  worker: { maxRetriesPerRequest: null },
  api: { maxRetriesPerRequest: 0, enableOfflineQueue: false },
};

/**
 * Opens a connection for `role` (see {@link RedisRole}). `shared` is true when the caller's client
 * was given: it is used as it is.
 */
export function openRedis(
  connection: RedisConnection,
  what: string,
  role: RedisRole,
): { client: Redis; shared: boolean } {
  if (connection instanceof Redis) return { client: connection, shared: true };
  if (typeof connection === 'string') {
    if (!/^rediss?:\/\//.test(connection)) {
      throw new ConfigurationError(
        `${what}: redis is ${JSON.stringify(redactUrl(connection))}; use a URL such as 'redis://127.0.0.1:6379', ioredis options, or an ioredis client.`,
      );
    }
    return { client: new Redis(connection, ROLE_OPTIONS[role]), shared: false };
  }
  if (typeof connection !== 'object' || connection === null) {
    throw new ConfigurationError(
      `${what}: redis is ${JSON.stringify(connection)}; use a URL such as 'redis://127.0.0.1:6379', ioredis options, or an ioredis client.`,
    );
  }
  return { client: new Redis({ ...connection, ...ROLE_OPTIONS[role] }), shared: false };
}

/** A second connection to the same server, for a worker's subscriptions (they hold the connection). */
export function duplicate(client: Redis): Redis {
  return client.duplicate({ maxRetriesPerRequest: null });
}

/**
 * A connection of its own for following one run's stream (blocking reads hold it): its first
 * commands wait for it to connect, but a read in flight when Redis goes away fails at once rather
 * than waiting for Redis to come back, so the follower ends instead of hanging.
 */
export function streamReader(client: Redis): Redis {
  return client.duplicate({ maxRetriesPerRequest: 0, enableOfflineQueue: true });
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
