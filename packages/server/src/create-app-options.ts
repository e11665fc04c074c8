import { statSync } from 'node:fs';
import {
  type ArtifactService,
  type BaseAgent,
  type CompactionOptions,
  type BaseLlm,
  type BasePlugin,
  ConfigurationError,
  type LoadAgentOptions,
  type MemoryService,
  type SessionService,
} from '@troupe/core';
import type { AuthOptions } from './auth.js';
import type { BackgroundRuns } from './background-runs.js';
import type { ImportModule } from './discover-apps.js';
import type { ErrorListener } from './error-response.js';
import { DEFAULT_BODY_LIMIT } from '@troupe/core/hosting';
import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
import { DEFAULT_STATE_LIMITS, type StateLimits } from './state-policy.js';

/** Options of `createApp`. At least one of `apps` and `agentsDir` is needed. */
export interface CreateAppOptions {
  /** Apps by name: the root agent of each. */
  apps?: Readonly<Record<string, BaseAgent>>;
  /**
   * A directory of apps, as `adk api_server` takes: each folder with an `agent.ts`/`agent.mts`/
   * `agent.js`/`agent.mjs` (its `rootAgent` or default export), or an `agent.yaml`/`agent.yml`/
   * `agent.json`/`root_agent.yaml` definition, is an app named after the folder (see
   * `discoverApps`: nothing else in the directory is imported). Explicit `apps` win on a name
   * clash. The directory is read once, on the first request that needs it.
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
  /**
   * Where the apps' `ctx.saveArtifact` keeps artifacts, also served by the artifact routes
   * (`GET .../sessions/{id}/artifacts`...). @default new InMemoryArtifactService()
   */
  artifactService?: ArtifactService;
  /**
   * Long-term memory of the apps (`loadMemoryTool`, `preloadMemoryTool`, `ctx.searchMemory`). After
   * every run and resume, the session is added to it (`AddSessionToMemoryPlugin`), so a user's
   * later sessions recall it; a failure to add it is reported like a run failure (`onError`).
   * @default undefined (no memory: agents with memory tools fail with a ConfigurationError)
   */
  memoryService?: MemoryService;
  /** Bearer-token auth. Without it every request acts as admin, which `serve` allows on loopback only. */
  auth?: AuthOptions;
  /** Largest request body accepted, in bytes; larger ones get 413. @default 1_048_576 (1 MiB) */
  bodyLimit?: number;
  /**
   * The shape of JSON bodies: nesting depth, string and array sizes (reserved keys such as
   * `__proto__` are always refused). Past them a request is a 400 naming the field.
   * @default { maxDepth: 64, maxStringLength: 1_048_576, maxItems: 10_000 }
   */
  jsonLimits?: JsonLimits;
  /**
   * Sizes of the `state` (new session) and `stateDelta` (run) one request may write; past them a
   * 400 names the key. Agents and tools, which run on the server, are not limited.
   * @default { maxValueBytes: 65_536, maxDeltaBytes: 262_144 }
   */
  stateLimits?: StateLimits;
  /** A folder of static files (the dev UI) served at `/` under the API routes, without auth. */
  staticDir?: string;
  /**
   * Keep what each model call of this process's runs saw (request, response, agent/model/tool
   * spans; bounded, secrets masked) for the dev UI's trace views (`GET /debug/trace/...`). It costs
   * a little per model and tool call, so an API server without the dev UI keeps none unless asked.
   * @default true when `staticDir` (the dev UI) is served, else false
   */
  traces?: boolean;
  /** Plugins of every app's runner. */
  plugins?: readonly BasePlugin[];
  /** Model for LlmAgents that name none (the CLI's `--model`). */
  defaultModel?: BaseLlm | string;
  /**
   * Host names the server answers to besides its own loopback names (`localhost`, `127.0.0.1`,
   * `[::1]` at the bound port; and IP addresses at that port when bound to a non-loopback address):
   * `'dev.example.com'` (any port), `'dev.example.com:8443'`, or `'.example.com'` (the domain and
   * its subdomains). A request for any other `Host` is refused with 403 `HOST_NOT_ALLOWED`, so a web
   * page on a name rebound to this machine (DNS rebinding) cannot drive it. Their pages are the
   * server's own origins too.
   * @default [] (the loopback names only)
   */
  allowedHosts?: readonly string[];
  /**
   * Origins of other web pages allowed to call the API from a browser (CORS), such as a Vite or
   * Next.js dev server: `'http://localhost:5173'`. They get the CORS headers and their preflights
   * are answered; a state-changing request or a preflight from any other origin than these and the
   * server's own is refused with 403 `ORIGIN_NOT_ALLOWED`.
   * @default [] (the server's own pages only)
   */
  allowedOrigins?: readonly string[];
  /**
   * Told about every failure on the server's side, e.g. to log it (the library itself never logs):
   * every 5xx, with what caused it (the store's StorageError, the bug's Error) and the request id
   * the client received; and, at level `'info'`, a client that gave up mid-upload.
   */
  onError?: ErrorListener;
  /**
   * How long a run's session lease holds without renewal (the runners' `leaseTtlMs`): after a
   * replica crashes, another resumes its sessions once this much time has passed.
   * @default 30000
   */
  leaseTtlMs?: number;
  /**
   * Strings to mask in every error message the apps' runners store (API keys, passwords), besides
   * what the redactor finds by itself (the runners' `secrets`).
   */
  secrets?: readonly string[];
  /** The apps' runners summarise older events every few turns (the runners' `compaction`; see docs/long-sessions.md). */
  compaction?: CompactionOptions;
  /**
   * How long `GET /health` waits for the session store's `checkHealth()` before answering 503.
   * @default 3000
   */
  healthCheckTimeoutMs?: number;
  /**
   * Run on worker processes instead of in this one: `@troupe/queue`'s `RunQueue` (BullMQ on
   * Redis). With it, `/run`, `/run_sse` and `.../resume` enqueue the run and follow its events
   * live, the cancel route cancels the queued run, and the background-run routes are served:
   * `POST|GET .../sessions/{id}/runs`, `GET .../runs/{runId}[/stream]`, `POST .../runs/{runId}/cancel`
   * and `POST|GET|DELETE /apps/{app}/schedules[/{id}]`. A client that disconnects stops following
   * its run; the run goes on (cancel it with the cancel routes). The caller closes the queue.
   * Workers (`RunWorker`, `troupe worker`) must share the session store and Redis. AG-UI runs
   * (`POST /ag-ui/{app}`) still execute in this process, streaming to the client that asked.
   * @default undefined (runs execute in this process; the background-run routes answer 404)
   *
   * @example
   * const queue = new RunQueue({ redis: 'redis://127.0.0.1:6379', sessionService });
   * const app = createApp({ agentsDir: 'agents', sessionService, queue });
   */
  queue?: BackgroundRuns;
  /**
   * Also serve the apps as an OpenAI-compatible API (`troupe api --openai`), for clients of
   * OpenAI's Chat Completions (the official SDKs, chat front ends): each app is a model.
   * `GET /v1/models` lists them; `POST /v1/chat/completions` (model = app name) runs one turn in
   * the session its `X-Session-Id` header names, or in a new one seeded from the request's earlier
   * messages (its id in the response's `X-Session-Id`), streamed as chunks (`stream: true`) or as
   * one completion, with the usage. A turn that pauses for a person answers with the question
   * (its id in `X-Troupe-Interrupt-Id`); the next message answers it. The API key is the bearer
   * token of `auth`; sessions belong to its user (`'openai'` without auth). With a `queue`, the
   * turns run on the workers. See docs/server.md.
   * @default false
   *
   * @example
   * const app = createApp({ apps: { support: supportAgent }, openai: true });
   * // new OpenAI({ baseURL: 'http://127.0.0.1:8000/v1', apiKey: 'unused' }).chat.completions.create({ model: 'support', messages })
   */
  openai?: boolean;
  /**
   * Also serve the apps as an MCP server over Streamable HTTP at `/mcp` (`troupe api --mcp`), for
   * MCP hosts (Claude, VS Code, Cursor...): each app is a tool that runs one turn (input `{ message,
   * sessionId? }`, or its root agent's `inputSchema`), its result the final text with
   * `_meta.sessionId` to continue the session; progress notifications, elicitation for approvals
   * and input requests (else a `resume` tool), cancellation. Per user with `auth` (the bearer
   * token's user; an admin token, and no auth, act as `'mcp'`). Its runs execute in this process,
   * with a `queue` too. See docs/mcp.md.
   * @default false
   *
   * @example
   * const app = createApp({ apps: { travel }, mcp: true, auth: { tokens: { 'alice-secret': 'alice' } } });
   * // an MCP host: { "url": "http://127.0.0.1:8000/mcp", "headers": { "Authorization": "Bearer alice-secret" } }
   */
  mcp?: boolean;
}

/** The default `bodyLimit`: 1 MiB, as every protocol route's (A2A's too). */
export { DEFAULT_BODY_LIMIT };

/** The default `healthCheckTimeoutMs`: 3 s, below the usual 5 s probe timeout of load balancers. */
export const DEFAULT_HEALTH_CHECK_TIMEOUT_MS = 3000;

/** Rejects unusable options with the option, the value and the fix. */
export function checkOptions(options: CreateAppOptions): void {
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError(
      `createApp needs an options object such as { apps: { myApp: rootAgent } }; got ${String(options)}.`,
    );
  if (options.apps === undefined && options.agentsDir === undefined) {
    throw new ConfigurationError(
      'createApp needs apps ({ name: rootAgent }) or an agentsDir to find them in; it got neither.',
    );
  }
  checkPositive('bodyLimit', options.bodyLimit, 'bytes, e.g. 1048576');
  checkPositive('healthCheckTimeoutMs', options.healthCheckTimeoutMs, 'milliseconds, e.g. 3000');
  for (const name of Object.keys(DEFAULT_JSON_LIMITS) as (keyof JsonLimits)[])
    checkPositive(
      `jsonLimits.${name}`,
      options.jsonLimits?.[name],
      `${JSON_LIMIT_UNITS[name]}, e.g. ${DEFAULT_JSON_LIMITS[name]}`,
    );
  for (const name of Object.keys(DEFAULT_STATE_LIMITS) as (keyof StateLimits)[])
    checkPositive(`stateLimits.${name}`, options.stateLimits?.[name], `bytes, e.g. ${DEFAULT_STATE_LIMITS[name]}`);
  const queue: unknown = options.queue;
  if (
    queue !== undefined &&
    !(
      typeof queue === 'object' &&
      queue !== null &&
      QUEUE_METHODS.every((m) => typeof (queue as Record<string, unknown>)[m] === 'function')
    )
  ) {
    throw new ConfigurationError(
      `createApp's queue must be a RunQueue from @troupe/queue (an object with ${QUEUE_METHODS.join(', ')}); got ${typeof queue === 'object' ? 'an object without them' : String(queue)}.`,
    );
  }
  const artifacts: unknown = options.artifactService;
  if (
    artifacts !== undefined &&
    !(
      typeof artifacts === 'object' &&
      artifacts !== null &&
      ARTIFACT_METHODS.every((m) => typeof (artifacts as Record<string, unknown>)[m] === 'function')
    )
  ) {
    throw new ConfigurationError(
      `createApp's artifactService must be an ArtifactService (an object with ${ARTIFACT_METHODS.join(', ')}), e.g. new InMemoryArtifactService() or SqliteArtifactService; got ${typeof artifacts === 'object' ? 'an object without them' : String(artifacts)}.`,
    );
  }
  const openai: unknown = options.openai;
  if (openai !== undefined && typeof openai !== 'boolean')
    throw new ConfigurationError(
      `createApp's openai is ${typeof openai === 'string' ? JSON.stringify(openai) : String(openai)}; it must be true (serve the OpenAI-compatible /v1 routes) or false.`,
    );
  const mcp: unknown = options.mcp;
  if (mcp !== undefined && typeof mcp !== 'boolean')
    throw new ConfigurationError(
      `createApp's mcp is ${typeof mcp === 'string' ? JSON.stringify(mcp) : String(mcp)}; it must be true (serve the apps over MCP at /mcp) or false.`,
    );
  for (const name of ['allowedHosts', 'allowedOrigins'] as const) {
    const list: unknown = options[name];
    if (list !== undefined && !Array.isArray(list))
      throw new ConfigurationError(`createApp's ${name} is ${JSON.stringify(list)}; it must be an array of strings.`);
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
    if (!isDirectory)
      throw new ConfigurationError(
        `createApp's ${name} '${dir}' is not a directory. Pass the path of an existing folder.`,
      );
  }
}

const ARTIFACT_METHODS = [
  'saveArtifact',
  'loadArtifact',
  'listArtifactKeys',
  'listVersions',
  'deleteArtifact',
] as const;

const QUEUE_METHODS = [
  'enqueue',
  'resume',
  'join',
  'status',
  'list',
  'cancel',
  'schedule',
  'listSchedules',
  'getSchedule',
  'removeSchedule',
] as const;

const JSON_LIMIT_UNITS: Readonly<Record<keyof JsonLimits, string>> = {
  maxDepth: 'levels',
  maxStringLength: 'characters',
  maxItems: 'items',
};

function checkPositive(name: string, value: unknown, example: string): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0)) {
    throw new ConfigurationError(
      `createApp's ${name} is ${JSON.stringify(value)}; it must be a positive whole number of ${example}.`,
    );
  }
}
