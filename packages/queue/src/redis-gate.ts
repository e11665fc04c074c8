import { TroupeError } from '@troupe/core';
import type { Redis } from 'ioredis';
import { QueueUnavailableError } from './errors.js';

/** Statuses of an ioredis client that is still making its first connection. */
const FIRST_CONNECT = new Set(['wait', 'connecting', 'connect']);

/**
 * Bounds the Redis calls of the API side (issue #28): while Redis is away, ioredis would keep
 * commands queued until it is back, and an HTTP request waiting on one would hang for as long. Here
 * a call fails at once with `QueueUnavailableError` when the connection is down, and after
 * `timeoutMs` when Redis does not answer (a network that drops packets instead of refusing them).
 * Only a queue that was just built and is still connecting for the first time is waited for (within
 * the same bound).
 */
export class RedisGate {
  private lastError: Error | undefined;
  private wasReady: boolean;
  private readonly onReady = () => {
    this.wasReady = true;
    this.lastError = undefined;
  };
  // Also keeps ioredis from printing "Unhandled error event" for every failed reconnect.
  private readonly onError = (error: Error) => {
    this.lastError = error;
  };

  constructor(
    private readonly client: Redis,
    readonly timeoutMs: number,
  ) {
    this.wasReady = client.status === 'ready';
    client.on('ready', this.onReady);
    client.on('error', this.onError);
  }

  /**
   * Runs `call` (commands on this client or connections made from it) once Redis is connected,
   * within the bound. Its failures become `QueueUnavailableError` naming `what`; a `TroupeError` it
   * throws itself (a refusal, not Redis) passes through.
   */
  async run<T>(what: string, call: () => Promise<T>): Promise<T> {
    await this.connected(what);
    let timer: NodeJS.Timeout | undefined;
    const work = call();
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.timeoutMs} ms (redisTimeoutMs)`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([work, late]);
    } catch (error) {
      // The call may still settle after the bound: its outcome is no longer anyone's.
      work.catch(() => undefined);
      if (error instanceof TroupeError) throw error;
      throw new QueueUnavailableError(what, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves once Redis answered a PING within the bound: before a call stores anything that only
   * makes sense if Redis then takes it. Checking the connection's status alone is not enough: for a
   * moment after Redis went away the connection still looks ready.
   */
  async check(what: string): Promise<void> {
    await this.run(what, () => this.client.ping());
  }

  /** Resolves when the client is connected; throws `QueueUnavailableError` at once when the connection was lost. */
  async connected(what: string): Promise<void> {
    const status = this.client.status;
    if (status === 'ready') return;
    if (this.wasReady || !FIRST_CONNECT.has(status))
      throw new QueueUnavailableError(what, this.lastError ?? new Error(`the connection to Redis is ${status}`));
    await waitUntilReady(this.client, this.timeoutMs).catch((error: unknown) => {
      throw new QueueUnavailableError(what, this.lastError ?? error);
    });
  }

  /** Stops listening to the client (which may be shared and outlive the queue). */
  dispose(): void {
    this.client.off('ready', this.onReady);
    this.client.off('error', this.onError);
  }
}

/** Resolves once `client` is ready; rejects after `timeoutMs`, or when it gives up connecting. */
export function waitUntilReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  if (client.status === 'wait') void client.connect().catch(() => undefined);
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new Error('the connection to Redis was closed'));
    const timer = setTimeout(() => done(new Error(`not connected within ${timeoutMs} ms`)), timeoutMs);
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}
