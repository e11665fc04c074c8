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
  | { status: 'unavailable'; store: { error: string } };

/**
 * `GET /health` (no auth): 200 `{ status: 'ok', store: 'ok' }` when the session store answers its
 * `checkHealth()` within `timeoutMs` (`store: 'unchecked'` for a store without one), else 503
 * `{ status: 'unavailable', store: { error } }` naming the problem, so a load balancer stops sending
 * requests that would fail. It never touches the apps.
 */
export function healthRoutes(ctx: ServerContext, timeoutMs: number): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/health', async (c) => {
    const service = ctx.sessionService;
    if (typeof service.checkHealth !== 'function') return c.json({ status: 'ok', store: 'unchecked' } satisfies HealthBody);
    try {
      // Called through a promise so that a store whose check throws synchronously is reported, not a 500.
      const check = Promise.resolve().then(() => service.checkHealth!());
      await withTimeout(check, timeoutMs, () => new StorageError(`The session store did not answer its health check within ${timeoutMs} ms.`));
      return c.json({ status: 'ok', store: 'ok' } satisfies HealthBody);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return c.json({ status: 'unavailable', store: { error: message } } satisfies HealthBody, 503);
    }
  });
  return routes;
}
