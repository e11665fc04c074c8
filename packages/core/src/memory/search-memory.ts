import type { InvocationContext } from '../agents/invocation-context.js';
import { ConfigurationError } from '../errors.js';
import type { MemoryService, SearchMemoryResponse } from './memory-service.js';

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

/** Searches the memories of the session's user in the session's app. */
export function searchSessionMemory(
  ctx: InvocationContext,
  query: string,
  user: string,
): Promise<SearchMemoryResponse> {
  const { appName, userId } = ctx.session;
  return requireMemoryService(ctx, user).searchMemory({ appName, userId, query });
}
