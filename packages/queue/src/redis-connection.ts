import { ConfigurationError } from '@troupe/core';
import { Redis, type RedisOptions } from 'ioredis';

/** How to reach Redis: a `redis://` URL, ioredis options, or a connected ioredis client (reused, never closed by us). */
export type RedisConnection = string | RedisOptions | Redis;

/**
 * Opens a connection as BullMQ needs it (`maxRetriesPerRequest: null`: its blocking commands must
 * wait through a reconnect instead of failing). `shared` is true when the caller's client was given.
 */
export function openRedis(connection: RedisConnection, what: string): { client: Redis; shared: boolean } {
  if (connection instanceof Redis) return { client: connection, shared: true };
  if (typeof connection === 'string') {
    if (!/^rediss?:\/\//.test(connection)) {
      throw new ConfigurationError(
        `${what}: redis is ${JSON.stringify(redactUrl(connection))}; use a URL such as 'redis://127.0.0.1:6379', ioredis options, or an ioredis client.`,
      );
    }
    return { client: new Redis(connection, { maxRetriesPerRequest: null }), shared: false };
  }
  if (typeof connection !== 'object' || connection === null) {
    throw new ConfigurationError(
      `${what}: redis is ${JSON.stringify(connection)}; use a URL such as 'redis://127.0.0.1:6379', ioredis options, or an ioredis client.`,
    );
  }
  return { client: new Redis({ ...connection, maxRetriesPerRequest: null }), shared: false };
}

/** A second connection to the same server, for blocking reads and subscriptions (they hold the connection). */
export function duplicate(client: Redis): Redis {
  return client.duplicate({ maxRetriesPerRequest: null });
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
