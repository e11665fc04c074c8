import { Hono, type MiddlewareHandler } from 'hono';
import { InMemoryArtifactService, InMemorySessionService } from '@troupe/core';
import { agUiRoutes } from './ag-ui/routes.js';
import { adkGraphRoutes } from './routes/adk-graph.js';
import { AppRegistry } from './app-registry.js';
import { Authenticator } from './auth.js';
import {
  checkOptions,
  DEFAULT_BODY_LIMIT,
  DEFAULT_HEALTH_CHECK_TIMEOUT_MS,
  type CreateAppOptions,
} from './create-app-options.js';
import { defaultImportModule } from './discover-apps.js';
import { errorResponse } from './error-response.js';
import { frameGuard } from './frame-guard.js';
import { hostCheck, HostPolicy } from './host-check.js';
import { HttpError } from './http-error.js';
import { DEFAULT_JSON_LIMITS } from './json-limits.js';
import { originCheck, OriginPolicy } from './origin-check.js';
import { requestIds } from './request-id.js';
import { artifactRoutes } from './routes/artifacts.js';
import { backgroundRunRoutes } from './routes/background-runs.js';
import { cancelRoutes } from './routes/cancel.js';
import { chatRoutes } from './routes/chat.js';
import { debugTraceRoutes } from './routes/debug-trace.js';
import { evalSetRoutes } from './routes/eval-sets.js';
import { healthRoutes } from './routes/health.js';
import { inputSchemaRoutes } from './routes/input-schema.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import { openAiRoutes } from './openai/routes.js';
import { queuedRunRoutes } from './routes/queued-run.js';
import { runRoutes } from './routes/run.js';
import { rewindRoutes } from './routes/rewind.js';
import { scheduleRoutes } from './routes/schedules.js';
import { sessionSummaryRoutes } from './routes/session-summaries.js';
import { sessionRoutes } from './routes/sessions.js';
import { RunTracker } from './run-tracker.js';
import { registerContext, type ServerContext, type ServerEnv, type TroupeApp } from './server-context.js';
import { DEFAULT_STATE_LIMITS } from './state-policy.js';
import { staticFiles } from './static-files.js';
import { TraceCollector } from './trace-collector.js';

/**
 * Builds the HTTP API: ADK's API server routes (so ADK clients work) plus resume, cancel, graph and health,
 * and the AG-UI routes (`POST /ag-ui/{app}`, for AG-UI front ends), as a Hono app. With a `queue`,
 * runs execute on worker processes and the background-run and schedule routes are added. Test it in process with `app.request(...)`; listen with {@link serve}.
 *
 * @example
 * const app = createApp({ apps: { travel: coordinator }, sessionService: new SqliteSessionService({ path: 'troupe.db' }) });
 * const res = await app.request('/list-apps'); // ["travel"]
 */
export function createApp(options: CreateAppOptions): TroupeApp {
  checkOptions(options);
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const artifactService = options.artifactService ?? new InMemoryArtifactService();
  const hosts = new HostPolicy(options.allowedHosts);
  const origins = new OriginPolicy(options.allowedOrigins, hosts);
  // What the model saw in each call of this process's runs, for the dev UI (GET /debug/trace/...).
  const traces = (options.traces ?? options.staticDir !== undefined) ? new TraceCollector() : undefined;
  const context: ServerContext = {
    registry: new AppRegistry({
      apps: options.apps,
      agentsDir: options.agentsDir,
      importModule: options.importModule ?? defaultImportModule,
      loadAgentOptions: options.loadAgentOptions,
      sessionService,
      artifactService,
      memoryService: options.memoryService,
      plugins: traces ? [...(options.plugins ?? []), traces.plugin()] : (options.plugins ?? []),
      defaultModel: options.defaultModel,
      leaseTtlMs: options.leaseTtlMs,
      secrets: options.secrets,
      compaction: options.compaction,
    }),
    sessionService,
    runs: new RunTracker(),
    auth: new Authenticator(options.auth),
    hosts,
    stateLimits: { ...DEFAULT_STATE_LIMITS, ...options.stateLimits },
    queue: options.queue,
    onError: options.onError,
  };
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const jsonLimits = { ...DEFAULT_JSON_LIMITS, ...options.jsonLimits };

  const app = new Hono<ServerEnv>();
  // In this order: every answer carries its request id and refuses to be framed; a request for a
  // foreign Host is refused before anything else looks at it; then the origin (CORS preflights need
  // no token); then auth.
  app.use('*', requestIds());
  app.use('*', frameGuard());
  app.use('*', hostCheck(hosts));
  app.use('*', originCheck(origins));
  app.use('*', async (c, next) => {
    c.set('bodyLimit', bodyLimit);
    c.set('jsonLimits', jsonLimits);
    await next();
  });
  const authenticate: MiddlewareHandler<ServerEnv> = async (c, next) => {
    c.set('principal', await context.auth.principalOf(c.req.header('Authorization')));
    await next();
  };
  for (const path of ['/list-apps', '/run', '/run_sse', '/apps/*', '/ag-ui/*', '/debug/*', '/dev/*'])
    app.use(path, authenticate);

  app.route('/', healthRoutes(context, options.healthCheckTimeoutMs ?? DEFAULT_HEALTH_CHECK_TIMEOUT_MS));
  app.route('/', metaRoutes(context));
  app.route('/', adkGraphRoutes(context));
  app.route('/', inputSchemaRoutes(context));
  app.route('/', sessionSummaryRoutes(context));
  app.route('/', debugTraceRoutes(traces));
  app.route('/', evalSetRoutes(context, { agentsDir: options.agentsDir, defaultModel: options.defaultModel }));
  app.route('/', sessionRoutes(context));
  app.route('/', artifactRoutes(context, artifactService));
  if (options.queue) {
    // Runs execute on workers: the ADK routes enqueue and follow them, beside the background-run routes.
    app.route('/', queuedRunRoutes(context, options.queue));
    app.route('/', backgroundRunRoutes(context, options.queue));
    app.route('/', scheduleRoutes(context, options.queue));
  } else {
    app.route('/', runRoutes(context));
  }
  app.route('/', cancelRoutes(context));
  app.route('/', rewindRoutes(context));
  // AG-UI runs execute in this process, with a queue too: their events stream to the client that asked.
  app.route('/', agUiRoutes(context));
  // The AI SDK's chat route (useChat), in this process too, for the same reason.
  app.route('/', chatRoutes(context));
  // OpenAI's clients: their own auth (a missing key answered in OpenAI's error shape) and errors.
  if (options.openai) app.route('/', openAiRoutes(context));
  // MCP clients: their own auth (answered in JSON-RPC's shape) and sessions; runs in this process.
  if (options.mcp) app.route('/', mcpRoutes(context, { auth: options.auth, bodyLimit, jsonLimits }));
  if (options.staticDir !== undefined) app.use('*', staticFiles(options.staticDir));

  app.notFound((c) =>
    c.json(new HttpError(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}.`).toBody(), 404),
  );
  app.onError((error, c) => errorResponse(error, c, options.onError, hosts));
  registerContext(app, context);
  return app;
}
