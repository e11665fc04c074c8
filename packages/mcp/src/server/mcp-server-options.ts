import {
  BaseAgent,
  ConfigurationError,
  InMemorySessionService,
  type RunConfig,
  Runner,
  type SessionService,
} from '@troupe/core';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_JSON_LIMITS,
  type JsonLimits,
  type TokenAuthOptions,
  tokenVerifier,
} from '@troupe/core/hosting';
import { type AppSource, type McpAppSource, recordSource, runnerSource, wrapSource } from './app-source.js';
import { type LocalRunTracker, localRunTracker, type McpRunTracker } from './run-tracker.js';

/**
 * Options of {@link mcpServer}: the apps to serve (`apps`, or one `agent`), and how.
 *
 * @example
 * mcpServer({ apps: { travel, weather }, sessionService: new SqliteSessionService({ path: 'troupe.db' }) });
 * mcpServer({ agent: travel, auth: { tokens: { 'alice-secret': 'alice' } } });
 */
export interface McpServerOptions {
  /**
   * The apps, each served as one tool named after it: root agents by app name, or a source of apps
   * that loads them on first use (`createApp`'s registry; see {@link McpAppSource}). Give `apps` or
   * `agent`, not both.
   */
  apps?: Readonly<Record<string, BaseAgent>> | McpAppSource;
  /** One agent served as the only app (named after the runner's `appName`, else the agent). */
  agent?: BaseAgent;
  /**
   * The runner of `agent` (its plugins, default model, stores). Its `agent` must be `agent` when
   * both are given; alone, it serves its own agent.
   * @default new Runner({ appName: agent.name, agent, sessionService })
   */
  runner?: Runner;
  /**
   * Where the sessions of the runners made here live (for `apps` given as agents, or `agent`
   * without `runner`). A persistent store keeps conversations across restarts.
   * @default new InMemorySessionService()
   */
  sessionService?: SessionService;
  /**
   * Bearer-token auth for {@link McpServerHandle.handleRequest}, the shape of `createApp`'s `auth`
   * in `@troupe/server`: every HTTP request then needs `Authorization: Bearer <token>`, and each
   * token stands for one user id, whose sessions are the only ones its calls can continue. A token
   * of `'*'` (an admin) acts as `defaultUserId`. Transports given to `server.connect()` (stdio)
   * serve one local user, `defaultUserId`.
   * @default undefined (every request acts as `defaultUserId`)
   */
  auth?: TokenAuthOptions;
  /**
   * The user id of stdio and other `connect()`ed transports, of HTTP requests without auth
   * configured, and of admin tokens: MCP carries no user of its own.
   * @default 'mcp'
   */
  defaultUserId?: string;
  /** Settings and limits of every run (`maxLlmCalls`, `timeoutMs`, ...). */
  runConfig?: RunConfig;
  /** The server's name in the MCP handshake. @default 'troupe' (with `agent`: its app name) */
  name?: string;
  /** The server's version in the MCP handshake. @default '1.0.0' */
  version?: string;
  /**
   * Largest HTTP request body `handleRequest` reads, in bytes; a larger one is answered with 413.
   * @default 1_048_576 (1 MiB, the HTTP API's)
   */
  bodyLimit?: number;
  /**
   * The shape of HTTP request bodies, as `createApp`'s `jsonLimits`: nesting depth, string and
   * array sizes (reserved keys such as `__proto__` are always refused). Past them a request is a
   * JSON-RPC error -32600 naming the field and the limit.
   * @default { maxDepth: 64, maxStringLength: 1_048_576, maxItems: 10_000 }
   */
  jsonLimits?: JsonLimits;
  /**
   * How long a call waits for the person to answer an elicitation (an approval, an input form).
   * Past it the call returns the pending interrupt, which the `resume` tool answers later.
   * @default 600_000 (10 minutes)
   */
  elicitationTimeoutMs?: number;
  /**
   * Told of every run a call starts, so that a host can cancel them when it shuts down and refuse
   * to delete a session while it runs (`createApp` passes its own). Runs are always cancelled by
   * the handle's `close()`.
   */
  runTracker?: McpRunTracker;
}

/** The options with their defaults applied, checked. */
export interface ResolvedMcpOptions {
  apps: AppSource;
  verifyToken: ((token: string) => string | undefined | Promise<string | undefined>) | undefined;
  defaultUserId: string;
  runConfig: RunConfig;
  name: string;
  version: string;
  bodyLimit: number;
  jsonLimits: Required<JsonLimits>;
  elicitationTimeoutMs: number;
  runTracker: LocalRunTracker;
}

/** The default `defaultUserId`: the user of stdio and of HTTP without auth. */
export const MCP_USER = 'mcp';

/** The default `elicitationTimeoutMs`: time for a person to read and answer a form. */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 600_000;

/** Applies the defaults once and rejects unusable options with the option, the value and the fix. */
export function resolveOptions(options: McpServerOptions): ResolvedMcpOptions {
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError(
      `mcpServer needs an options object such as { apps: { travel: rootAgent } } or { agent: rootAgent }; got ${String(options)}.`,
    );
  for (const name of ['defaultUserId', 'name', 'version'] as const) {
    const value: unknown = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0))
      throw new ConfigurationError(
        `mcpServer's ${name} is ${JSON.stringify(value)}; it must be a non-empty string or left out.`,
      );
  }
  const verifyToken = options.auth === undefined ? undefined : tokenVerifier(options.auth, "mcpServer's auth");
  // Checked as the caller may have passed it: anything.
  const tracker = options.runTracker as { begin?: unknown } | null | undefined;
  if (tracker !== undefined && typeof tracker?.begin !== 'function')
    throw new ConfigurationError(
      `mcpServer's runTracker must have a begin(session) method returning { signal, end() }; got ${typeof tracker === 'object' ? 'an object without it' : String(tracker)}.`,
    );
  const local = localRunTracker();
  const { apps, singleName } = appsOf(options);
  return {
    apps,
    verifyToken,
    defaultUserId: options.defaultUserId ?? MCP_USER,
    runConfig: { ...options.runConfig },
    name: options.name ?? singleName ?? 'troupe',
    version: options.version ?? '1.0.0',
    bodyLimit: whole('bodyLimit', options.bodyLimit, DEFAULT_BODY_LIMIT),
    jsonLimits: {
      maxDepth: whole('jsonLimits.maxDepth', options.jsonLimits?.maxDepth, DEFAULT_JSON_LIMITS.maxDepth),
      maxStringLength: whole(
        'jsonLimits.maxStringLength',
        options.jsonLimits?.maxStringLength,
        DEFAULT_JSON_LIMITS.maxStringLength,
      ),
      maxItems: whole('jsonLimits.maxItems', options.jsonLimits?.maxItems, DEFAULT_JSON_LIMITS.maxItems),
    },
    elicitationTimeoutMs: whole('elicitationTimeoutMs', options.elicitationTimeoutMs, DEFAULT_ELICITATION_TIMEOUT_MS),
    runTracker: options.runTracker ? local.alongside(options.runTracker) : local,
  };
}

/** The app source of the options, and the app's name when one agent is served. */
function appsOf(options: McpServerOptions): { apps: AppSource; singleName: string | undefined } {
  const { apps, agent, runner } = options;
  if (apps !== undefined && (agent !== undefined || runner !== undefined))
    throw new ConfigurationError(
      `mcpServer got apps and ${agent !== undefined ? 'agent' : 'runner'}; give apps (several apps) or agent/runner (one app), not both.`,
    );
  if (runner !== undefined) {
    if (!isRunner(runner))
      throw new ConfigurationError(`mcpServer's runner must be a Runner; got ${describe(runner)}.`);
    if (agent !== undefined && runner.agent !== agent)
      throw new ConfigurationError(
        `mcpServer's runner runs a different agent ('${runner.agent.name}') than the agent it was given ('${describe(agent)}'). Pass the runner of that agent, or leave one of them out.`,
      );
    if (options.sessionService !== undefined && options.sessionService !== runner.sessionService)
      throw new ConfigurationError(
        `mcpServer got both a runner and a sessionService that is not the runner's. Give one of them: the runner's store is where its sessions live.`,
      );
    return { apps: runnerSource(runner), singleName: runner.appName };
  }
  const sessionService = options.sessionService ?? new InMemorySessionService();
  if (agent !== undefined) {
    if (!(agent instanceof BaseAgent))
      throw new ConfigurationError(
        `mcpServer's agent must be an agent (a BaseAgent such as LlmAgent); got ${describe(agent)}.`,
      );
    return { apps: runnerSource(new Runner({ appName: agent.name, agent, sessionService })), singleName: agent.name };
  }
  if (apps === undefined)
    throw new ConfigurationError(
      'mcpServer needs apps ({ name: rootAgent }) or an agent to serve; it got neither. Example: mcpServer({ apps: { travel: rootAgent } }).',
    );
  if (typeof apps !== 'object' || apps === null)
    throw new ConfigurationError(`mcpServer's apps must be an object of root agents by name; got ${describe(apps)}.`);
  if (isSource(apps)) return { apps: wrapSource(apps), singleName: undefined };
  return { apps: recordSource(apps, sessionService), singleName: undefined };
}

// Duck-typed: a runner or agent of another copy of @troupe/core is as good.
function isRunner(value: unknown): value is Runner {
  const runner = value as Partial<Runner> | null;
  return typeof runner?.startResume === 'function' && typeof runner.appName === 'string';
}

function isSource(apps: object): apps is McpAppSource {
  const source = apps as Partial<Record<keyof McpAppSource, unknown>>;
  return typeof source.names === 'function' && typeof source.runner === 'function';
}

function whole(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new ConfigurationError(
    `mcpServer's ${name} is ${JSON.stringify(value)}; it must be a whole number of at least 1, e.g. ${fallback}, or left out.`,
  );
}

function describe(value: unknown): string {
  if (value instanceof BaseAgent) return value.name;
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
