import { Hono } from 'hono';
import { StorageError } from '@troupe/core';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { withTimeout } from '../timeout.js';

/** The body of `GET /health`. */
export type HealthBody =
  | {
      status: 'ok';
      /** `'ok'` when the store answered its health check; `'unchecked'` when it has none. */
      store: 'ok' | 'unchecked';
    }
  | {
      status: 'unavailable';
      /** What went wrong, without the store's own message (which may name hosts or files): `onError` has that. */
      store: { error: string };
      /** The request's id, as in the `X-Request-Id` header and the report to `onError`. */
      requestId: string;
    };

/**
 * `GET /health` (no auth): 200 `{ status: 'ok', store: 'ok' }` when the session store answers its
 * `checkHealth()` within `timeoutMs` (`store: 'unchecked'` for a store without one), else 503
 * `{ status: 'unavailable', store: { error }, requestId }` saying whether the check failed or did not
 * answer, so a load balancer stops sending requests that would fail. The store's own error goes to
 * `onError` with the request id. It never touches the apps.
 */
export function healthRoutes(ctx: ServerContext, timeoutMs: number): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/health', async (c) => {
    const service = ctx.sessionService;
    if (typeof service.checkHealth !== 'function')
      return c.json({ status: 'ok', store: 'unchecked' } satisfies HealthBody);
    let timedOut = false;
    try {
      // Called through a promise so that a store whose check throws synchronously is reported, not a 500.
      const check = Promise.resolve().then(() => service.checkHealth!());
      await withTimeout(check, timeoutMs, () => {
        timedOut = true;
        return new StorageError(`The session store did not answer its health check within ${timeoutMs} ms.`);
      });
      return c.json({ status: 'ok', store: 'ok' } satisfies HealthBody);
    } catch (error) {
      const requestId = c.get('requestId');
      ctx.onError?.(error, c.req.raw, { requestId, level: 'error' });
      const message = timedOut
        ? `The session store did not answer its health check within ${timeoutMs} ms.`
        : "The session store failed its health check; the server's log (onError) has its message.";
      return c.json({ status: 'unavailable', store: { error: message }, requestId } satisfies HealthBody, 503);
    }
  });
  return routes;
}
