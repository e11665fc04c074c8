import {
  type BaseAgent,
  ConfigurationError,
  InMemorySessionService,
  type RunConfig,
  Runner,
  type SessionService,
} from '@troupe/core';
import { DEFAULT_BODY_LIMIT, DEFAULT_JSON_LIMITS, type JsonLimits } from '@troupe/core/hosting';
import { type A2aAuthOptions, checkAuthOptions } from './auth.js';
import type { RequestLimits } from './request-limits.js';

/** Who runs the A2A service, as the agent card names it. */
export interface A2aProvider {
  /** The organization's name, e.g. `'Example Corp'`. */
  organization: string;
  /** Its website. */
  url: string;
}

/**
 * Options of {@link a2aApp}. Only `baseUrl` is required.
 *
 * @example
 * a2aApp(travelAgent, { baseUrl: 'http://127.0.0.1:8000/a2a/travel', sessionService: new SqliteSessionService({ path: 'troupe.db' }) });
 */
export interface A2aAppOptions {
  /**
   * The public URL the app is served at (where its JSON-RPC endpoint is), e.g.
   * `'https://agents.example.com/a2a/travel'`. The agent card gives it to clients, which send
   * their requests there; the card itself is at `<baseUrl>/.well-known/agent-card.json`.
   */
  baseUrl: string;
  /**
   * The runner of the agent tree (with its plugins, default model and session store). Its `agent`
   * must be `rootAgent`.
   * @default new Runner({ appName, agent: rootAgent, sessionService })
   */
  runner?: Runner;
  /**
   * Where sessions (A2A contexts) and so tasks live. A persistent store (SQLite, PostgreSQL) keeps
   * tasks across restarts: `tasks/get`, answers to paused tasks and cancels work in a new process.
   * Give it or `runner`, not both.
   * @default the runner's, or new InMemorySessionService()
   */
  sessionService?: SessionService;
  /** The app name sessions are stored under (ignored with `runner`, which has its own). @default rootAgent.name */
  appName?: string;
  /**
   * Let A2A clients approve tool calls that wait for a confirmation (`requireConfirmation`,
   * `ctx.requestConfirmation`). Off by default: a remote agent answering "yes" would approve a
   * side effect (a payment, an email) on behalf of the human the confirmation was meant for.
   * Input requests (`ctx.requestInput`) can always be answered.
   * @default false
   */
  allowRemoteApprovals?: boolean;
  /**
   * Bearer-token auth, as `createApp`'s `auth` in `@troupe/server`: every JSON-RPC request then
   * needs `Authorization: Bearer <token>`, and each token stands for one user id, whose contexts
   * and tasks are the only ones it can see. The agent card stays public.
   * @default undefined (every request acts as `defaultUserId`)
   */
  auth?: A2aAuthOptions;
  /**
   * The user id of requests without auth configured, and of tokens that map to `'*'` (admin):
   * A2A carries no user of its own, so their contexts and tasks are kept under this one.
   * @default 'a2a'
   */
  defaultUserId?: string;
  /** Settings and limits of every run (`maxLlmCalls`, `timeoutMs`, ...). Streaming is always on. */
  runConfig?: RunConfig;
  /**
   * Largest JSON-RPC request accepted, in bytes; a larger one is answered with HTTP 413. The HTTP
   * API's default, so a message refused there is refused here too.
   * @default 1_048_576 (1 MiB)
   */
  bodyLimit?: number;
  /**
   * The shape of JSON-RPC requests, as `createApp`'s `jsonLimits` of the HTTP API: nesting depth,
   * string and array sizes (reserved keys such as `__proto__` are always refused). Past them a
   * request is a JSON-RPC error -32602 naming the field and the limit. Ids (`messageId`,
   * `taskId`, `contextId`, the request's `id`) are held to 256 characters besides.
   * @default { maxDepth: 64, maxStringLength: 1_048_576, maxItems: 10_000 }
   */
  jsonLimits?: JsonLimits;
  /** The agent's version on the card. @default '1.0.0' */
  version?: string;
  /** The service provider on the card. */
  provider?: A2aProvider;
  /** A page documenting the agent, on the card. */
  documentationUrl?: string;
}

/** The options with their defaults applied, checked. */
export interface ResolvedA2aOptions {
  runner: Runner;
  baseUrl: string;
  allowRemoteApprovals: boolean;
  auth: A2aAuthOptions | undefined;
  defaultUserId: string;
  runConfig: RunConfig;
  limits: RequestLimits;
  version: string;
  provider: A2aProvider | undefined;
  documentationUrl: string | undefined;
}

/** Applies the defaults once and rejects unusable options with the option, the value and the fix. */
export function resolveOptions(rootAgent: BaseAgent, options: A2aAppOptions): ResolvedA2aOptions {
  if (!rootAgent || typeof rootAgent.runAsync !== 'function') {
    throw new ConfigurationError(
      `a2aApp needs the root agent of the tree to serve (a BaseAgent such as LlmAgent); got ${String(rootAgent)}.`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `a2aApp(${rootAgent.name}, options) needs an options object with at least baseUrl, e.g. { baseUrl: 'http://127.0.0.1:8000/a2a/${rootAgent.name}' }; got ${String(options)}.`,
    );
  }
  const baseUrl = checkBaseUrl(options.baseUrl, rootAgent.name);
  if (
    options.runner !== undefined &&
    options.sessionService !== undefined &&
    options.runner.sessionService !== options.sessionService
  ) {
    throw new ConfigurationError(
      `a2aApp got both a runner and a sessionService that is not the runner's. Give one of them: the runner's store is where its sessions live.`,
    );
  }
  if (options.runner !== undefined && options.runner.agent !== rootAgent) {
    throw new ConfigurationError(
      `a2aApp's runner runs agent '${options.runner.agent.name}', not '${rootAgent.name}' that the card describes. Pass the runner of ${rootAgent.name}, or leave runner out.`,
    );
  }
  for (const name of ['defaultUserId', 'appName', 'version', 'documentationUrl'] as const) {
    const value: unknown = options[name];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      throw new ConfigurationError(
        `a2aApp's ${name} is ${JSON.stringify(value)}; it must be a non-empty string or left out.`,
      );
    }
  }
  if (options.allowRemoteApprovals !== undefined && typeof options.allowRemoteApprovals !== 'boolean') {
    throw new ConfigurationError(
      `a2aApp's allowRemoteApprovals is ${JSON.stringify(options.allowRemoteApprovals)}; use true or false.`,
    );
  }
  checkAuthOptions(options.auth);
  const limits = checkLimits(options);
  const runner =
    options.runner ??
    new Runner({
      appName: options.appName ?? rootAgent.name,
      agent: rootAgent,
      sessionService: options.sessionService ?? new InMemorySessionService(),
    });
  return {
    runner,
    baseUrl,
    allowRemoteApprovals: options.allowRemoteApprovals ?? false,
    auth: options.auth,
    defaultUserId: options.defaultUserId ?? 'a2a',
    runConfig: { ...options.runConfig },
    limits,
    version: options.version ?? '1.0.0',
    provider: options.provider,
    documentationUrl: options.documentationUrl,
  };
}

/** The body and JSON limits, each a whole number of at least 1 when given. */
function checkLimits(options: A2aAppOptions): RequestLimits {
  const given: [string, unknown, number][] = [['bodyLimit', options.bodyLimit, DEFAULT_BODY_LIMIT]];
  const jsonLimits: unknown = options.jsonLimits;
  if (jsonLimits !== undefined && (typeof jsonLimits !== 'object' || jsonLimits === null || Array.isArray(jsonLimits)))
    throw new ConfigurationError(
      `a2aApp's jsonLimits is ${JSON.stringify(jsonLimits)}; give an object such as { maxDepth: 64, maxItems: 10000 }, or leave it out.`,
    );
  for (const name of Object.keys(DEFAULT_JSON_LIMITS) as (keyof JsonLimits)[])
    given.push([`jsonLimits.${name}`, options.jsonLimits?.[name], DEFAULT_JSON_LIMITS[name]]);
  for (const [name, value, example] of given) {
    if (value !== undefined && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 1))
      throw new ConfigurationError(
        `a2aApp's ${name} is ${JSON.stringify(value)}; it must be a whole number of at least 1, e.g. ${example}, or left out.`,
      );
  }
  return {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    json: {
      maxDepth: options.jsonLimits?.maxDepth ?? DEFAULT_JSON_LIMITS.maxDepth,
      maxStringLength: options.jsonLimits?.maxStringLength ?? DEFAULT_JSON_LIMITS.maxStringLength,
      maxItems: options.jsonLimits?.maxItems ?? DEFAULT_JSON_LIMITS.maxItems,
    },
  };
}

function checkBaseUrl(value: unknown, agentName: string): string {
  const example = `e.g. 'http://127.0.0.1:8000/a2a/${agentName}'`;
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigurationError(
      `a2aApp needs baseUrl, the public URL it is served at (${example}); got ${JSON.stringify(value)}.`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      `a2aApp's baseUrl ${JSON.stringify(value)} is not an absolute URL; give scheme, host and path, ${example}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(
      `a2aApp's baseUrl ${JSON.stringify(value)} is not an http(s) URL; A2A's JSON-RPC binding runs over HTTP, ${example}.`,
    );
  }
  if (url.search !== '' || url.hash !== '')
    throw new ConfigurationError(
      `a2aApp's baseUrl ${JSON.stringify(value)} has a query or fragment; give the URL without them, ${example}.`,
    );
  // Clients append the card's path to it: no trailing slash, so that '<baseUrl>/.well-known/...' has one.
  return value.replace(/\/+$/, '');
}
