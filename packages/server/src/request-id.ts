import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ServerEnv } from './server-context.js';

/** The response header that carries the request's id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * Gives every request an id of the server's own making (never the client's, which could forge
 * log lines): in the `X-Request-Id` header of every response, in the body of every 5xx, and passed
 * to `onError`, so a user who reports an error and the server's log point at the same request.
 */
export function requestIds(): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const id = randomUUID();
    c.set('requestId', id);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, id);
  };
}
