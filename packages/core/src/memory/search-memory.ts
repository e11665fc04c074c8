import type { InvocationContext } from '../agents/invocation-context.js';
import { ConfigurationError } from '../errors.js';
import type { MemoryService, SearchMemoryParams, SearchMemoryResponse } from './memory-service.js';

/**
 * The runner's memory service; without one, a `ConfigurationError` saying how to give the Runner
 * one. `user` names what needs it, e.g. `"Tool 'load_memory' of agent 'assistant'"`.
 */
export function requireMemoryService(ctx: InvocationContext, user: string): MemoryService {
  const service = ctx.shared.memoryService;
  if (!service) {
    throw new ConfigurationError(
      `${user} needs a memory service, and the Runner has none. Pass one: new Runner({ ..., memoryService: new InMemoryMemoryService() }) (or SqliteMemoryService / PostgresMemoryService; createApp({ memoryService }) on a server).`,
    );
  }
  return service;
}

/** How a search of the session user's memory matches: see `SearchMemoryParams`. */
export type MemorySearchOptions = Pick<SearchMemoryParams, 'mode' | 'limit'>;

/** Searches the memories of the session's user in the session's app. */
export function searchSessionMemory(
  ctx: InvocationContext,
  query: string,
  user: string,
  options: MemorySearchOptions = {},
): Promise<SearchMemoryResponse> {
  const { appName, userId } = ctx.session;
  return requireMemoryService(ctx, user).searchMemory({ appName, userId, query, ...definedOf(options) });
}

/** The options that are set: an unset mode leaves the service its default. */
export function definedOf(options: MemorySearchOptions): MemorySearchOptions {
  return {
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  };
}

/**
 * Checks a memory tool's `mode` and `limit` options (`tool` names it), so a typo fails when the
 * agent is built rather than at the first search.
 */
export function checkMemorySearchOptions(options: MemorySearchOptions, tool: string): MemorySearchOptions {
  const { mode, limit } = options;
  if (mode !== undefined && mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') {
    throw new ConfigurationError(
      `${tool} option 'mode' must be 'keyword', 'vector' or 'hybrid'; got ${JSON.stringify(mode)}. Omit it for the memory service's default (hybrid with an embedder, keyword without).`,
    );
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
    throw new ConfigurationError(
      `${tool} option 'limit' must be a whole number ≥ 1; got ${JSON.stringify(limit)}. Omit it for the memory service's maxResults.`,
    );
  }
  return definedOf(options);
}
