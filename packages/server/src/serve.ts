import { randomUUID } from 'node:crypto';
import { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type Http2Bindings, type HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { ConfigurationError } from '@troupe/core';
import { HttpError } from './http-error.js';
import { isLoopback } from './loopback.js';
import { sendNodeBody } from './node-body.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { contextOf, type TroupeApp } from './server-context.js';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Address to bind. Anything but a loopback address needs the app to have `auth`. @default '127.0.0.1' */
  host?: string;
  /** Port; 0 picks a free one (read it from the handle's `port`/`url`). @default 8000 (as `adk api_server`) */
  port?: number;
  /** How long `close()` lets runs in flight finish before cancelling them. @default 10_000 */
  gracePeriodMs?: number;
  /**
   * Replace the process's global `Request` and `Response` with @hono/node-server's lightweight
   * ones, which write a response straight to the socket instead of building a web `Response` and
   * its body stream first (about a third more requests per second on small JSON answers). They
   * behave like the built-in classes (`instanceof` holds) but are globals of the whole process, so
   * a library leaves them alone; an application that owns its process (as `troupe api` does) may
   * turn this on. @default false
   */
  overrideGlobalObjects?: boolean;
}

/** A listening server. */
export interface ServerHandle {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The underlying Node server. */
  readonly server: Server;
  /**
   * Stops accepting connections, lets runs in flight finish for the grace period, cancels the
   * rest (each stores its cancellation, leaving its session valid), and resolves once every
   * connection is closed.
   */
  close(options?: { gracePeriodMs?: number }): Promise<void>;
}

/**
 * Listens with an app made by `createApp`. Binds 127.0.0.1 unless told otherwise, and refuses any
 * other address when the app has no `auth`: without it anyone who reaches the port could run the
 * agents and read every session. Once bound, the app answers only to its own names at this port
 * (`localhost`, `127.0.0.1`, `[::1]`, and `allowedHosts`; see createApp's `allowedHosts`).
 *
 * @example
 * const handle = await serve(createApp({ apps: { travel: coordinator } }), { port: 8000 });
 * // ... later
 * await handle.close();
 */
export async function serve(app: TroupeApp, options: ServeOptions = {}): Promise<ServerHandle> {
  const context = contextOf(app);
  if (!context)
    throw new ConfigurationError(
      'serve() needs an app made by createApp() (it checks its auth and drains its runs on close). Add your own routes to that app instead of wrapping it.',
    );
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8000;
  const defaultGrace = options.gracePeriodMs ?? 10_000;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigurationError(
      `serve()'s port is ${JSON.stringify(port)}; use a whole number from 0 to 65535 (0 picks a free port).`,
    );
  if (!(defaultGrace >= 0))
    throw new ConfigurationError(
      `serve()'s gracePeriodMs is ${JSON.stringify(defaultGrace)}; use a number of milliseconds ≥ 0.`,
    );
  if (!isLoopback(host) && !context.auth.enabled) {
    throw new ConfigurationError(
      `Refusing to listen on '${host}': it is not a loopback address and the app has no auth configured, so anyone who can reach the port could run the agents and read every session. ` +
        `Configure auth (createApp({ ..., auth: { tokens: { '<secret>': '*' } } })), or bind 127.0.0.1.`,
    );
  }

  let closing = false;
  const server = createAdaptorServer({
    fetch: (request: Request, env: HttpBindings | Http2Bindings) =>
      closing ? shuttingDown() : respond(app, request, env),
    // A library does not replace the process's global Request and Response unless asked to.
    overrideGlobalObjects: options.overrideGlobalObjects ?? false,
  });
  if (!(server instanceof Server))
    throw new ConfigurationError('serve() expected an HTTP/1.1 server from @hono/node-server.');

  // Responses in flight, so that close() can wait for the last one before dropping connections.
  let inFlight = 0;
  let idle: (() => void) | undefined;
  server.on('request', (_request, response) => {
    inFlight++;
    response.once('close', () => {
      if (--inFlight === 0) idle?.();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // From now on only this port is the server's own (a page on another local port is another origin).
  context.hosts.bind(address.address, address.port);
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    host: address.address,
    port: address.port,
    server,
    close(closeOptions) {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        const grace = closeOptions?.gracePeriodMs ?? defaultGrace;
        await context.runs.shutdown(grace);
        // Run streams end with their runs; give the last bytes a moment to leave, then drop what is left.
        if (inFlight > 0) {
          await new Promise<void>((resolve) => {
            idle = resolve;
            setTimeout(resolve, Math.min(grace, 1000)).unref();
          });
        }
        server.closeAllConnections();
        // A run still storing its cancellation (a slow store) gets one more grace period before the registry closes.
        await context.runs.idle(grace);
        await stopped;
        // Then release what the agents hold open (MCP servers and other toolsets).
        await context.registry.close();
      })();
      return closed;
    },
  };
}

/**
 * The app's answer; a streamed one that can write itself to Node's response does so (see
 * `withNodeBody`), and @hono/node-server is told it was sent.
 */
async function respond(app: TroupeApp, request: Request, env: HttpBindings | Http2Bindings): Promise<Response> {
  const response = await app.fetch(request, env);
  const { outgoing } = env;
  return outgoing instanceof ServerResponse && sendNodeBody(response, outgoing) ? RESPONSE_ALREADY_SENT : response;
}

function shuttingDown(): Response {
  const requestId = randomUUID();
  const body = new HttpError(
    503,
    'SERVER_CLOSING',
    'The server is shutting down. Retry against another instance.',
  ).toBody(requestId);
  return new Response(JSON.stringify(body), {
    status: 503,
    headers: { 'Content-Type': 'application/json', Connection: 'close', [REQUEST_ID_HEADER]: requestId },
  });
}
