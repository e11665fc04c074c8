import { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** Calls `listener` once if the client goes away before its answer was sent; returns how to stop listening. */
export type ClientGone = (listener: () => void) => () => void;

/**
 * How a route hears that its client went away. Served by Node (`serve()`, @hono/node-server), the
 * response's 'close' before it finished tells; that costs nothing per request, while reading the
 * request's `signal` makes @hono/node-server build an AbortController for it. Elsewhere (e.g.
 * `app.request()` in tests) the request's signal tells.
 */
export function clientGoneOf(c: Context): ClientGone {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    return (listener) => {
      if (outgoing.destroyed && !outgoing.writableFinished) {
        listener();
        return () => undefined;
      }
      const onClose = () => {
        if (!outgoing.writableFinished) listener();
      };
      outgoing.once('close', onClose);
      return () => outgoing.off('close', onClose);
    };
  }
  const signal = c.req.raw.signal;
  return (listener) => {
    if (signal.aborted) {
      listener();
      return () => undefined;
    }
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  };
}
