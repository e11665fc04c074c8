import { ConfigurationError } from '../errors.js';
import type { Session } from '../sessions/session.js';
import type { EmbeddingModel } from './embedding-model.js';
import type { MemorySearchMode, SearchMemoryParams } from './memory-service.js';
import { memoryWords } from './memory-words.js';

/**
 * Checks `searchMemory`'s parameters and returns the query's words (see {@link memoryWords}); no
 * words (an empty or blank query, or only punctuation) means no memories. `service` names the
 * class in the message.
 */
export function searchWords(params: SearchMemoryParams, service: string): string[] {
  if (typeof params !== 'object' || params === null) {
    throw new ConfigurationError(`${service}.searchMemory needs { appName, userId, query }; got ${String(params)}.`);
  }
  requireName(
    params.appName,
    'appName',
    `${service}.searchMemory`,
    "the app whose memories to search, e.g. { appName: 'travel', userId, query }",
  );
  requireName(
    params.userId,
    'userId',
    `${service}.searchMemory`,
    "the user whose memories to search, e.g. { appName, userId: 'u1', query }",
  );
  if (typeof params.query !== 'string') {
    throw new ConfigurationError(
      `${service}.searchMemory: 'query' must be a string; got ${describe(params.query)}. Pass the words to look for, e.g. { appName, userId, query: 'favourite city' }.`,
    );
  }
  return memoryWords(params.query);
}

/** Checks the session given to `addSessionToMemory`. */
export function checkMemorySession(session: Session, service: string): void {
  const where = `${service}.addSessionToMemory`;
  if (typeof session !== 'object' || session === null) {
    throw new ConfigurationError(`${where} needs a session (from sessionService.getSession); got ${String(session)}.`);
  }
  requireName(session.appName, 'session.appName', where, 'a session read from the session service');
  requireName(session.userId, 'session.userId', where, 'a session read from the session service');
  requireName(session.id, 'session.id', where, 'a session read from the session service');
  if (!Array.isArray(session.events)) {
    throw new ConfigurationError(
      `${where}: session '${session.id}' has no events array (got ${describe(session.events)}). Pass the session as getSession returns it, with its events (listSessions omits them).`,
    );
  }
}

/**
 * Checks a memory service's `maxResults` option.
 * @returns the option, or its default of 10.
 */
export function resolveMaxResults(value: unknown, service: string): number {
  if (value === undefined) return 10;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(
      `${service} option 'maxResults' must be a whole number ≥ 1; got ${describe(value)}. Omit it for the default of 10.`,
    );
  }
  return value;
}

function requireName(value: unknown, name: string, where: string, fix: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigurationError(
      `${where}: '${name}' must be a non-empty string; got ${describe(value)}. Pass ${fix}.`,
    );
  }
}

function describe(value: unknown): string {
  return value === undefined
    ? 'undefined'
    : typeof value === 'string'
      ? JSON.stringify(value)
      : `${typeof value} ${JSON.stringify(value) ?? String(value)}`;
}

/** How a search runs, once its parameters are checked: see {@link resolveSearchMode}. */
export interface ResolvedSearch {
  mode: MemorySearchMode;
  /** The most memories to return. */
  limit: number;
}

/**
 * Checks `searchMemory`'s `mode` and `limit` for a service with or without an embedder: the mode
 * defaults to `hybrid` with one and `keyword` without; `vector` or `hybrid` without an embedder is
 * a `ConfigurationError` saying how to give the service one. `limit` defaults to `maxResults`.
 */
export function resolveSearchMode(
  params: SearchMemoryParams,
  options: { service: string; embedder: EmbeddingModel | undefined; maxResults: number },
): ResolvedSearch {
  const { service, embedder, maxResults } = options;
  const mode = params.mode ?? (embedder ? 'hybrid' : 'keyword');
  if (mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') {
    throw new ConfigurationError(
      `${service}.searchMemory: 'mode' must be 'keyword', 'vector' or 'hybrid'; got ${describe(mode)}. Omit it for ${embedder ? "'hybrid'" : "'keyword'"}.`,
    );
  }
  if (mode !== 'keyword' && !embedder) {
    throw new ConfigurationError(
      `${service}.searchMemory: mode '${mode}' searches by meaning, which needs an embedder, and this service has none. Give it one (new ${service}({ ..., embedder: openaiEmbedder({ model: 'text-embedding-3-small' }) }), see docs/memory.md), or search with mode 'keyword'.`,
    );
  }
  const limit = params.limit ?? maxResults;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    throw new ConfigurationError(
      `${service}.searchMemory: 'limit' must be a whole number ≥ 1; got ${describe(limit)}. Omit it for the service's maxResults (${maxResults}).`,
    );
  }
  return { mode, limit };
}

/** Checks a memory service's `embedder` option: undefined, or an object with `dimensions` and `embed`. */
export function checkEmbedder(value: unknown, service: string): EmbeddingModel | undefined {
  if (value === undefined) return undefined;
  const embedder = (typeof value === 'object' && value !== null ? value : {}) as Partial<EmbeddingModel>;
  if (
    typeof value !== 'object' ||
    typeof embedder.embed !== 'function' ||
    typeof embedder.dimensions !== 'number' ||
    !Number.isInteger(embedder.dimensions) ||
    embedder.dimensions < 1
  ) {
    throw new ConfigurationError(
      `${service} option 'embedder' must be an EmbeddingModel ({ dimensions, embed(texts) }), such as openaiEmbedder({ model: 'text-embedding-3-small' }) from @troupe/models; got ${describe(value)}.`,
    );
  }
  return embedder as EmbeddingModel;
}

/**
 * Checks a memory service's listener option (`onError`, `onWarning`): undefined or a function.
 * @returns the listener.
 */
export function checkListener<F extends (value: never) => void>(
  value: F | undefined,
  option: string,
  service: string,
): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new ConfigurationError(
      `${service} option '${option}' must be a function; got ${typeof value}. Pass e.g. { ${option}: (x) => console.warn(x) }.`,
    );
  }
  return value;
}
