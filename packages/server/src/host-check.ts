import { isIP } from 'node:net';
import { ConfigurationError } from '@troupe/core';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './http-error.js';
import { isLoopback } from './loopback.js';

/**
 * Which `Host` values (and so which origins) are this server's own. A DNS-rebinding page reaches
 * a loopback server under the attacker's own name (`Host: attacker.example:8000`), so only the
 * loopback names count by default, at the port the server is bound to:
 *
 * - `localhost`, `127.0.0.1`, `[::1]` and the loopback address bound, at the bound port (any port
 *   before `serve` binds one, e.g. for `app.request` in tests);
 * - when bound to a non-loopback address (which needs auth), also IP literals at the bound port:
 *   an IP address cannot be rebound, a name can;
 * - every entry of `allowedHosts`: `name` (any port), `name:port`, or `.example.com` (that
 *   domain and its subdomains, any port).
 */
export class HostPolicy {
  private readonly entries: readonly AllowedHost[];
  private readonly ports = new Set<number>();
  private readonly loopbackAddresses = new Set(['localhost', '127.0.0.1', '[::1]']);
  private boundElsewhere = false;

  constructor(allowedHosts: readonly string[] | undefined) {
    this.entries = (allowedHosts ?? []).map(parseAllowedHost);
  }

  /**
   * True once `serve` listens, and only on loopback addresses: every client is on this machine
   * (the developer at the dev UI), so errors may name local files.
   */
  get loopbackOnly(): boolean {
    return this.ports.size > 0 && !this.boundElsewhere;
  }

  /** The `allowedHosts` entries as given, normalized (lower case), for messages. */
  get allowed(): readonly string[] {
    return this.entries.map((entry) => entry.text);
  }

  /** Records an address and port `serve` listens on: from now on only that port is the server's own. */
  bind(address: string, port: number): void {
    this.ports.add(port);
    const name = address.includes(':') ? `[${address}]` : address;
    if (isLoopback(address)) this.loopbackAddresses.add(name.toLowerCase());
    else this.boundElsewhere = true;
  }

  /**
   * True when a `Host` header value (`name[:port]`, port 80 when absent) names this server. With
   * `anyPort`, only the name counts: for the URL of an in-process `app.request('/path')`, which is
   * `http://localhost/path` whatever port the app is also served on.
   */
  hostAllowed(host: string, anyPort = false): boolean {
    const parsed = parseAuthority(host);
    if (parsed === undefined) return false;
    return anyPort ? this.isOwnName(parsed.hostname) : this.isOwn(parsed.hostname, parsed.port ?? 80, undefined);
  }

  /**
   * True when `hostname` at `port` is one of the server's own names. `requestPort` stands in for
   * the bound port before `serve` bound one (an origin is then own at the port the request came to).
   */
  isOwn(hostname: string, port: number, requestPort: number | undefined): boolean {
    const name = hostname.toLowerCase();
    if (this.entries.some((entry) => entry.matches(name, port))) return true;
    if (!this.isBuiltInName(name)) return false;
    if (this.ports.size > 0) return this.ports.has(port);
    return requestPort === undefined || requestPort === port;
  }

  private isOwnName(hostname: string): boolean {
    return this.isBuiltInName(hostname) || this.entries.some((entry) => entry.matches(hostname, undefined));
  }

  private isBuiltInName(hostname: string): boolean {
    return this.loopbackAddresses.has(hostname) || (this.boundElsewhere && isIpLiteral(hostname));
  }
}

/**
 * Refuses (403 `HOST_NOT_ALLOWED`) a request whose `Host` header or URL (the only one for
 * `app.request` in process) names a host that is not one of the server's own (see {@link HostPolicy}).
 */
export function hostCheck(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('Host');
    if (header !== undefined && !policy.hostAllowed(header)) throw hostNotAllowed(header, policy);
    // The URL's host is the Host header's, or the one an in-process app.request was given (no port
    // there: its default URL is http://localhost/...), or a request line's in absolute form.
    const urlHost = new URL(c.req.url).host;
    if (!policy.hostAllowed(urlHost, true)) throw hostNotAllowed(urlHost, policy);
    await next();
  };
}

function hostNotAllowed(host: string, policy: HostPolicy): HttpError {
  const shown = host.length > 200 ? `${host.slice(0, 200)}...` : host;
  const listed = policy.allowed.length > 0 ? ` (allowedHosts: ${policy.allowed.join(', ')})` : '';
  return new HttpError(
    403,
    'HOST_NOT_ALLOWED',
    `Requests for host '${shown}' are refused: this server answers only to its own names${listed}, so that a web page on another name resolved to this machine (DNS rebinding) cannot drive it. ` +
      `Open it at http://127.0.0.1:<port> or http://localhost:<port>, or add the name to createApp's allowedHosts (troupe api/web: --allowed-host ${parseAuthority(host)?.hostname ?? '<name>'}).`,
  );
}

interface AllowedHost {
  readonly text: string;
  /** True for this name at this port (any port when `port` is undefined and the entry names none). */
  matches(hostname: string, port: number | undefined): boolean;
}

function parseAllowedHost(entry: string): AllowedHost {
  const problem = allowedHostProblem(entry);
  if (problem !== undefined) {
    throw new ConfigurationError(
      `createApp's allowedHosts has ${JSON.stringify(entry)}, ${problem}. List host names as the browser sends them in Host, e.g. 'dev.example.com', 'dev.example.com:8443' or '.example.com' (the domain and its subdomains).`,
    );
  }
  const text = entry.trim().toLowerCase();
  if (text.startsWith('.')) {
    const domain = text.slice(1);
    return { text, matches: (hostname) => hostname === domain || hostname.endsWith(text) };
  }
  const { hostname, port } = parseAuthority(text)!;
  return { text, matches: (name, p) => name === hostname && (port === undefined || p === undefined || port === p) };
}

/**
 * Why `entry` cannot be an `allowedHosts` entry (`"which is not a host name ..."`), or undefined
 * when it can: `name`, `name:port`, `[v6]:port` or `.domain`. Any host (`'*'`) is refused: it would
 * let a page on any rebound name drive the server.
 */
export function allowedHostProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'string') return 'which is not a string';
  const text = entry.trim().toLowerCase();
  if (text === '*') return "but any host ('*') would let any web page on a rebound name drive the server";
  if (text.startsWith('.')) {
    const domain = text.slice(1);
    return parseAuthority(domain) === undefined || domain.includes(':') || domain === ''
      ? 'which is not a domain name'
      : undefined;
  }
  return parseAuthority(text) === undefined ? 'which is not a host name with an optional port' : undefined;
}

// A Host value: a name of letters, digits, '.', '-' and '_' (or a bracketed IPv6 address), then an
// optional port. Nothing else: 'evil@127.0.0.1' or 'a/b' would parse as something else in a URL.
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i;

/** Splits `name[:port]` into its lower-case host name and port; undefined for anything else. */
export function parseAuthority(authority: string): { hostname: string; port: number | undefined } | undefined {
  const match = AUTHORITY.exec(authority);
  if (!match) return undefined;
  const hostname = match[1]!.toLowerCase();
  if (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) !== 6) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { hostname, port };
}

function isIpLiteral(hostname: string): boolean {
  return isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
}
