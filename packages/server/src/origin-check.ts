import { ConfigurationError } from '@troupe/core';
import type { Context, MiddlewareHandler } from 'hono';
import { type HostPolicy, parseAuthority } from './host-check.js';
import { HttpError } from './http-error.js';

/** Methods that change nothing: a foreign page may send them (it cannot read the answer without CORS). */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** What a preflight allows an allowed origin to send. */
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type',
  'Access-Control-Max-Age': '600',
};

/**
 * Which web pages may call the API from a browser: the server's own pages (an origin whose host is
 * one of the server's own names, see {@link HostPolicy}; for `localhost`, `127.0.0.1` and `[::1]`
 * only at the server's own port) and the origins listed in `allowedOrigins`. The request's `Host` is
 * never the yardstick: a rebound name makes `Origin` and `Host` agree.
 */
export class OriginPolicy {
  private readonly listed: ReadonlySet<string>;

  constructor(
    allowedOrigins: readonly string[] | undefined,
    private readonly hosts: HostPolicy,
  ) {
    this.listed = new Set((allowedOrigins ?? []).map(parseAllowedOrigin));
  }

  /** True when a page of `origin` may call the API; `requestHost` is the `Host` the request came to. */
  allows(origin: string, requestHost: string): boolean {
    if (this.listed.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // 'null' (a sandboxed frame, a file:// page) and anything else that is not an origin
    }
    if (url.origin !== origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const requestPort = parseAuthority(requestHost)?.port ?? 80;
    return this.hosts.isOwn(url.hostname, port, requestPort);
  }
}

/**
 * Applies an {@link OriginPolicy} to requests that carry `Origin` (browsers send it on every
 * cross-origin request and on every POST): an allowed origin gets the CORS headers, and its
 * preflights (`OPTIONS` with `Access-Control-Request-Method`) get 204 with what it may send; any
 * other origin's preflight, and its state-changing requests, get 403 `ORIGIN_NOT_ALLOWED`.
 */
export function originCheck(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('Origin');
    if (origin === undefined) return next();
    const allowed = policy.allows(origin, requestHost(c));
    if (c.req.method === 'OPTIONS' && c.req.header('Access-Control-Request-Method') !== undefined) {
      if (!allowed) throw originNotAllowed(origin);
      return c.body(null, 204, { ...corsHeaders(origin), ...PREFLIGHT_HEADERS, Vary: 'Origin' });
    }
    if (!allowed && !SAFE_METHODS.has(c.req.method)) throw originNotAllowed(origin);
    await next();
    if (allowed) {
      for (const [name, value] of Object.entries(corsHeaders(origin))) c.res.headers.set(name, value);
      c.res.headers.append('Vary', 'Origin');
    }
  };
}

function corsHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'X-Request-Id' };
}

function requestHost(c: Context): string {
  return c.req.header('Host') ?? new URL(c.req.url).host;
}

function originNotAllowed(origin: string): HttpError {
  const shown = origin.length > 200 ? `${origin.slice(0, 200)}...` : origin;
  return new HttpError(
    403,
    'ORIGIN_NOT_ALLOWED',
    `Requests from origin '${shown}' are not allowed: only the server's own pages and the origins in createApp's allowedOrigins may call it from a browser. ` +
      `To let that page call the API, add it to allowedOrigins (troupe api/web: --allow-origin ${shown}).`,
  );
}

/** An `allowedOrigins` entry as browsers send `Origin`: `scheme://host[:port]`, lower case, no default port. */
function parseAllowedOrigin(entry: string): string {
  const problem = allowedOriginProblem(entry);
  if (problem !== undefined) {
    throw new ConfigurationError(
      `createApp's allowedOrigins has ${JSON.stringify(entry)}, ${problem}. List origins as browsers send them: scheme, host and port only, e.g. 'http://localhost:5173'.`,
    );
  }
  return new URL(entry.trim()).origin;
}

/**
 * Why `entry` cannot be an `allowedOrigins` entry (`"which is not a URL"`, ...), or undefined when
 * it can: an http(s) URL with nothing but scheme, host and port (a trailing `/` is fine).
 */
export function allowedOriginProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'string') return 'which is not a string';
  let url: URL;
  try {
    url = new URL(entry.trim());
  } catch {
    return 'which is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `whose scheme '${url.protocol}' is neither http: nor https:`;
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '')
    return 'which has more than an origin (a path, query, fragment or user name)';
  return undefined;
}
