import { statSync } from 'node:fs';
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { type BaseAgent, type BaseLlm, type BasePlugin, ConfigurationError, InMemorySessionService, type LoadAgentOptions, type SessionService } from '@troupe/core';
import { AppRegistry } from './app-registry.js';
import { Authenticator, type AuthOptions } from './auth.js';
import { defaultImportModule, type ImportModule } from './discover-apps.js';
import { HttpError, toHttpError } from './http-error.js';
import { cancelRoutes } from './routes/cancel.js';
import { healthRoutes } from './routes/health.js';
import { metaRoutes } from './routes/meta.js';
import { runRoutes } from './routes/run.js';
import { sessionRoutes } from './routes/sessions.js';
import { RunTracker } from './run-tracker.js';
import { registerContext, type ServerContext, type ServerEnv, type TroupeApp } from './server-context.js';
import { staticFiles } from './static-files.js';

/** Options of {@link createApp}. At least one of `apps` and `agentsDir` is needed. */
export interface CreateAppOptions {
  /** Apps by name: the root agent of each. */
  apps?: Readonly<Record<string, BaseAgent>>;
  /**
   * A directory of apps, as `adk api_server` takes: each folder with an `agent.ts`/`agent.mts`/
   * `agent.js`/`agent.mjs` (its `rootAgent` or default export), or an `agent.yaml`/`agent.yml`/
   * `agent.json` definition, is an app named after the folder; each module file in the directory
   * that exports `rootAgent` is an app named after the file. Explicit `apps` win on a name clash.
   * The directory is read once, on the first request that needs it.
   */
  agentsDir?: string;
  /** Options of core's `loadAgent` for YAML/JSON definitions in `agentsDir` (`model`, `models`). */
  loadAgentOptions?: LoadAgentOptions;
  /**
   * Imports the agent modules of `agentsDir`. The CLI passes one that compiles TypeScript.
   * @default plain `import()` (JavaScript, or TypeScript when the process runs under a TS loader)
   */
  importModule?: ImportModule;
  /** Where sessions live. @default new InMemorySessionService() */
  sessionService?: SessionService;
  /** Bearer-token auth. Without it every request acts as admin, which `serve` allows on loopback only. */
  auth?: AuthOptions;
  /** Largest request body accepted, in bytes; larger ones get 413. @default 1_048_576 (1 MiB) */
  bodyLimit?: number;
  /** A folder of static files (the dev UI) served at `/` under the API routes, without auth. */
  staticDir?: string;
  /** Plugins of every app's runner. */
  plugins?: readonly BasePlugin[];
  /** Model for LlmAgents that name none (the CLI's `--model`). */
  defaultModel?: BaseLlm | string;
  /**
   * Origins of browser pages allowed to call the API (CORS). A state-changing request whose
   * `Origin` is neither the server's own nor listed is refused with 403, so a web page the user
   * visits cannot drive a local server. @default [] (same origin only)
   */
  allowedOrigins?: readonly string[];
  /**
   * Told about every server-side failure, e.g. to log it: a 500 (a bug) and a 503 from the session
   * store (`STORAGE`). The library itself never logs.
   */
  onError?: (error: unknown, request: Request) => void;
  /**
   * How long a run's session lease holds without renewal (the runners' `leaseTtlMs`): after a
   * replica crashes, another resumes its sessions once this much time has passed.
   * @default 30000
   */
  leaseTtlMs?: number;
  /**
   * How long `GET /health` waits for the session store's `checkHealth()` before answering 503.
   * @default 3000
   */
  healthCheckTimeoutMs?: number;
}

/** The default `bodyLimit`: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The default `healthCheckTimeoutMs`: 3 s, below the usual 5 s probe timeout of load balancers. */
export const DEFAULT_HEALTH_CHECK_TIMEOUT_MS = 3000;

/**
 * Builds the HTTP API: ADK's API server routes (so ADK clients work) plus resume, cancel, graph and health,
 * as a Hono app. Test it in process with `app.request(...)`; listen with {@link serve}.
 *
 * @example
 * const app = createApp({ apps: { travel: coordinator }, sessionService: new SqliteSessionService({ path: 'troupe.db' }) });
 * const res = await app.request('/list-apps'); // ["travel"]
 */
export function createApp(options: CreateAppOptions): TroupeApp {
  checkOptions(options);
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const context: ServerContext = {
    registry: new AppRegistry({
      apps: options.apps,
      agentsDir: options.agentsDir,
      importModule: options.importModule ?? defaultImportModule,
      loadAgentOptions: options.loadAgentOptions,
      sessionService,
      plugins: options.plugins ?? [],
      defaultModel: options.defaultModel,
      leaseTtlMs: options.leaseTtlMs,
    }),
    sessionService,
    runs: new RunTracker(),
    auth: new Authenticator(options.auth),
  };
  const allowedOrigins = [...(options.allowedOrigins ?? [])];
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  const app = new Hono<ServerEnv>();
  if (allowedOrigins.length > 0) app.use('*', cors({ origin: allowedOrigins, allowHeaders: ['Authorization', 'Content-Type'], allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'] }));
  app.use('*', sameOriginOnly(allowedOrigins));
  app.use('*', async (c, next) => {
    c.set('bodyLimit', limit);
    await next();
  });
  const authenticate: MiddlewareHandler<ServerEnv> = async (c, next) => {
    c.set('principal', await context.auth.principalOf(c.req.header('Authorization')));
    await next();
  };
  for (const path of ['/list-apps', '/run', '/run_sse', '/apps/*']) app.use(path, authenticate);

  app.route('/', healthRoutes(context, options.healthCheckTimeoutMs ?? DEFAULT_HEALTH_CHECK_TIMEOUT_MS));
  app.route('/', metaRoutes(context));
  app.route('/', sessionRoutes(context));
  app.route('/', runRoutes(context));
  app.route('/', cancelRoutes(context));
  if (options.staticDir !== undefined) app.use('*', staticFiles(options.staticDir));

  app.notFound((c) => c.json(new HttpError(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`).toBody(), 404));
  app.onError((error, c) => {
    const http = toHttpError(error);
    // The hook gets what failed (the store's StorageError, the bug's Error), not the HTTP wrapper the routes made of it.
    if (http.status === 500 || http.code === 'STORAGE') options.onError?.(http.cause ?? error, c.req.raw);
    const headers: Record<string, string> = http.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {};
    return c.json(http.toBody(), http.status, headers);
  });
  registerContext(app, context);
  return app;
}

/**
 * Refuses a state-changing request sent by a page of another origin: without auth on loopback,
 * any web page could otherwise post to the local API (as ADK's server refuses them too).
 */
function sameOriginOnly(allowedOrigins: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('Origin');
    if (origin === undefined || c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS') return next();
    const own = `${new URL(c.req.url).protocol}//${c.req.header('Host') ?? new URL(c.req.url).host}`;
    if (origin === own || allowedOrigins.includes(origin)) return next();
    throw new HttpError(403, 'ORIGIN_NOT_ALLOWED', `Requests from origin '${origin}' are not allowed. Add it to createApp's allowedOrigins to let that page call the API.`);
  };
}

function checkOptions(options: CreateAppOptions): void {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError(`createApp needs an options object such as { apps: { myApp: rootAgent } }; got ${String(options)}.`);
  if (options.apps === undefined && options.agentsDir === undefined) {
    throw new ConfigurationError('createApp needs apps ({ name: rootAgent }) or an agentsDir to find them in; it got neither.');
  }
  if (options.bodyLimit !== undefined && !(Number.isInteger(options.bodyLimit) && options.bodyLimit > 0)) {
    throw new ConfigurationError(`createApp's bodyLimit is ${JSON.stringify(options.bodyLimit)}; it must be a positive whole number of bytes, e.g. 1048576.`);
  }
  if (options.healthCheckTimeoutMs !== undefined && !(Number.isInteger(options.healthCheckTimeoutMs) && options.healthCheckTimeoutMs > 0)) {
    throw new ConfigurationError(`createApp's healthCheckTimeoutMs is ${JSON.stringify(options.healthCheckTimeoutMs)}; it must be a positive whole number of milliseconds, e.g. 3000.`);
  }
  for (const [name, dir] of [
    ['agentsDir', options.agentsDir],
    ['staticDir', options.staticDir],
  ] as const) {
    if (dir === undefined) continue;
    let isDirectory = false;
    try {
      isDirectory = statSync(dir).isDirectory();
    } catch {
      // Reported below with the fix.
    }
    if (!isDirectory) throw new ConfigurationError(`createApp's ${name} '${dir}' is not a directory. Pass the path of an existing folder.`);
  }
}
