import type * as Queue from '@troupe/queue';
import { type SessionService } from '@troupe/core';
import { supportsRunRecords } from '@troupe/core/stores';
import { CliUsageError } from '../errors.js';
import { redactUrl } from '../redact-url.js';

/** `@troupe/queue`, imported only by the commands that use Redis, so that the others start without it. */
export type QueueModule = typeof Queue;

/** How long a command waits for Redis to answer at startup before giving up with the fix. */
export const REDIS_READY_TIMEOUT_MS = 10_000;

/** Imports `@troupe/queue` (BullMQ, ioredis) on first use. */
export async function importQueue(flag: string): Promise<QueueModule> {
  try {
    return await import('@troupe/queue');
  } catch (error) {
    throw new CliUsageError(
      `${flag} needs the package @troupe/queue, which could not be loaded (${(error as Error).message}). Install it next to @troupe/cli: npm install @troupe/queue`,
    );
  }
}

/** Checks a `--redis` value: a `redis://` or `rediss://` URL. */
export function checkRedisUrl(url: string): void {
  if (!/^rediss?:\/\/\S+$/.test(url)) {
    const shown = url.includes('@') ? 'the given value' : JSON.stringify(url);
    throw new CliUsageError(
      `--redis ${shown} is not a Redis URL; give one such as --redis redis://127.0.0.1:6379 (rediss:// for TLS, redis://:password@host:6379 with a password).`,
    );
  }
}

/**
 * Refuses a session store that does not keep run records: the queue keeps each run's record
 * (status, attempts) in the session store the API and the workers share.
 */
export function checkRunRecords(service: SessionService, description: string): void {
  if (!supportsRunRecords(service)) {
    throw new CliUsageError(
      `The session store (${description}) does not keep run records, which background runs (--redis) need. Use @troupe/sqlite and @troupe/postgres of the same version as @troupe/queue, with --db <path> or --pg <url>.`,
    );
  }
}

/**
 * Asks Redis for a PING once, without retrying, before the queue's own connections (which retry
 * for ever, as BullMQ needs) are opened: a Redis that is down or misnamed is an error naming
 * `--redis` within {@link REDIS_READY_TIMEOUT_MS}, not a command that hangs. Returns a warning when
 * Redis may evict keys (BullMQ's jobs and locks must never be evicted), or undefined.
 */
export async function probeRedis(url: string): Promise<string | undefined> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REDIS_READY_TIMEOUT_MS,
    commandTimeout: REDIS_READY_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // connect() rejects with "Connection is closed"; the socket's own error says why (ECONNREFUSED, ENOTFOUND, NOAUTH).
  let socketError: Error | undefined;
  client.on('error', (error: Error) => (socketError ??= error));
  try {
    try {
      await client.connect();
      await client.ping();
    } catch (error) {
      throw new CliUsageError(
        `Redis at ${redactUrl(url)} did not answer (${(socketError ?? (error as Error)).message}). Check that it runs and that --redis names it, e.g. start it with 'redis-server --maxmemory-policy noeviction' and pass --redis redis://127.0.0.1:6379.`,
      );
    }
    // Managed Redis services may refuse CONFIG: then there is nothing to tell.
    const reply: unknown = await client.config('GET', 'maxmemory-policy').catch(() => undefined);
    const policy = Array.isArray(reply) ? reply[1] : undefined;
    if (typeof policy === 'string' && policy !== 'noeviction') {
      return `Redis at ${redactUrl(url)} runs with maxmemory-policy ${policy}: when it fills up it may evict the queue's jobs and locks, and runs get lost. Run it with --maxmemory-policy noeviction (see docs/deploy.md).`;
    }
    return undefined;
  } finally {
    client.disconnect();
  }
}
