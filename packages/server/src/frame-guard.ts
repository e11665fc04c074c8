import type { MiddlewareHandler } from 'hono';

/**
 * Forbids every page to frame the server's answers: `Content-Security-Policy: frame-ancestors
 * 'none'`, and `X-Frame-Options: DENY` for browsers that predate it. Without them a page could load
 * the dev UI in an invisible frame and lure a click onto its Approve button (clickjacking). Set on
 * the API's answers too (errors and streams included): none of them is meant to be shown in a frame.
 */
export function frameGuard(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    // Set on the response as it is, not a copy: a stream that serve() writes itself keeps its body.
    c.res.headers.set('Content-Security-Policy', "frame-ancestors 'none'");
    c.res.headers.set('X-Frame-Options', 'DENY');
  };
}
