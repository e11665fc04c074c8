import { Hono } from 'hono';
import { StorageError, TroupeError } from '@troupe/core';
import type { BackgroundRuns } from '../background-runs.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { withTimeout } from '../timeout.js';

/** What went wrong with a dependency, without its own message (which may name hosts or files): `onError` has that. */
export interface HealthProblem {
  error: string;
}

/** The queue's part of `GET /health` (with createApp's `queue`): Redis, and how many workers were seen lately. */
export type QueueHealthBody = { redis: 'ok'; workers: number } | { redis: HealthProblem };

/** The body of `GET /health`. */
export type HealthBody =
  | {
      status: 'ok';
      /** `'ok'` when the store answered its health check; `'unchecked'` when it has none. */
      store: 'ok' | 'unchecked';
      /** With a queue: Redis answered; `workers` counts the workers seen lately (0: runs wait until one starts). */
      queue?: { redis: 'ok'; workers: number };
    }
  | {
      status: 'unavailable';
      store: 'ok' | 'unchecked' | HealthProblem;
      queue?: QueueHealthBody;
      /** The request's id, as in the `X-Request-Id` header and the report to `onError`. */
      requestId: string;
    };

/**
 * `GET /health` (no auth): 200 `{ status: 'ok', store: 'ok' }` when the session store answers its
 * `checkHealth()` within `timeoutMs` (`store: 'unchecked'` for a store without one) and, with a
 * queue, Redis answers too (`queue: { redis: 'ok', workers }`, the workers seen lately); else 503
 * `{ status: 'unavailable', store, queue, requestId }` with `{ error }` in place of what failed,
 * saying whether it failed or did not answer, so a load balancer stops sending requests that would
 * fail. The failure itself goes to `onError` with the request id. It never touches the apps.
 */
export function healthRoutes(ctx: ServerContext, timeoutMs: number): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/health', async (c) => {
    const report = (error: unknown) =>
      ctx.onError?.(error, c.req.raw, { requestId: c.get('requestId'), level: 'error' });
    const queue = ctx.queue;
    const [store, queued] = await Promise.all([
      storeHealth(ctx, timeoutMs, report),
      queue ? queueHealth(queue, timeoutMs, report) : undefined,
    ]);
    if (typeof store === 'string' && (queued === undefined || queued.redis === 'ok')) {
      return c.json({
        status: 'ok',
        store,
        ...(queued ? { queue: queued } : {}),
      } satisfies HealthBody);
    }
    return c.json(
      {
        status: 'unavailable',
        store,
        ...(queued ? { queue: queued } : {}),
        requestId: c.get('requestId'),
      } satisfies HealthBody,
      503,
    );
  });
  return routes;
}

async function storeHealth(
  ctx: ServerContext,
  timeoutMs: number,
  report: (error: unknown) => void,
): Promise<'ok' | 'unchecked' | HealthProblem> {
  const service = ctx.sessionService;
  if (typeof service.checkHealth !== 'function') return 'unchecked';
  let timedOut = false;
  try {
    // Called through a promise so that a store whose check throws synchronously is reported, not a 500.
    const check = Promise.resolve().then(() => service.checkHealth!());
    await withTimeout(check, timeoutMs, () => {
      timedOut = true;
      return new StorageError(`The session store did not answer its health check within ${timeoutMs} ms.`);
    });
    return 'ok';
  } catch (error) {
    report(error);
    return {
      error: timedOut
        ? `The session store did not answer its health check within ${timeoutMs} ms.`
        : "The session store failed its health check; the server's log (onError) has its message.",
    };
  }
}

async function queueHealth(
  queue: BackgroundRuns,
  timeoutMs: number,
  report: (error: unknown) => void,
): Promise<QueueHealthBody | undefined> {
  if (typeof queue.checkHealth !== 'function') return undefined;
  let timedOut = false;
  try {
    const check = Promise.resolve().then(() => queue.checkHealth!());
    const { workers } = await withTimeout(check, timeoutMs, () => {
      timedOut = true;
      return new TroupeError('QUEUE_UNAVAILABLE', `Redis did not answer within ${timeoutMs} ms.`);
    });
    return { redis: 'ok', workers };
  } catch (error) {
    report(error);
    return {
      redis: {
        error: timedOut
          ? `Redis did not answer within ${timeoutMs} ms.`
          : "Redis did not answer: the connection is down or refused. The server's log (onError) has the reason.",
      },
    };
  }
}
