import type { Context } from 'hono';
import type { HostPolicy } from './host-check.js';
import { type HttpError, reportedError, toHttpError } from './http-error.js';
import { retryAfterOf } from './http-remedy.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import type { ServerEnv } from './server-context.js';

/** What createApp's `onError` hears besides the error and the request. */
export interface ErrorReport {
  /** The request's id: also in the response's `X-Request-Id` header and in the body of a 5xx. */
  requestId: string;
  /**
   * `'error'`: a failure on the server's side (every 5xx: a bug, the store, an app that does not
   * load). `'info'`: something the client did that is worth one line, e.g. a body cut off mid-upload.
   */
  level: 'error' | 'info';
}

/** createApp's `onError`: told about failures on the server's side, e.g. to log them (the library never logs). */
export type ErrorListener = (error: unknown, request: Request, report: ErrorReport) => void;

/**
 * The JSON response for anything thrown while handling a request (createApp's `app.onError`), and
 * the report to `onError`: every 5xx with what caused it (the store's StorageError, the bug's
 * Error, not an HTTP wrapper made of it), and a client that gave up mid-upload at info level. A
 * server bound to loopback only (`hosts`) answers on its own machine, so it names the file, line
 * and reason of an app that failed to load (see {@link HttpError.toBody}).
 */
export function errorResponse(
  error: unknown,
  c: Context<ServerEnv>,
  onError: ErrorListener | undefined,
  hosts?: HostPolicy,
): Response {
  const http = toHttpError(error);
  const headers = reportErrorAndHeaders(http, c, onError);
  const local = hosts?.loopbackOnly === true;
  return c.json(http.toBody(http.status >= 500 ? c.get('requestId') : undefined, local), http.status, headers);
}

/**
 * What every error answer does besides its body: tells `onError` (every 5xx, with what caused it;
 * a client that gave up mid-upload, at info level), and returns the answer's headers: the request
 * id, `WWW-Authenticate` on a 401, and `Retry-After` when the failure says when to try again.
 */
export function reportErrorAndHeaders(
  http: HttpError,
  c: Context<ServerEnv>,
  onError: ErrorListener | undefined,
): Record<string, string> {
  const requestId = c.get('requestId');
  if (http.status >= 500) onError?.(reportedError(http), c.req.raw, { requestId, level: 'error' });
  else if (http.code === 'REQUEST_ABORTED') onError?.(http, c.req.raw, { requestId, level: 'info' });
  const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId };
  if (http.status === 401) headers['WWW-Authenticate'] = 'Bearer';
  // A busy session whose lease frees by a known time (its holder may have stopped) says when.
  const retryAfter = retryAfterOf(reportedError(http));
  if (retryAfter !== undefined) headers['Retry-After'] = retryAfter;
  return headers;
}
