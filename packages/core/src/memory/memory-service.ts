import type { Content } from '../events/content.js';
import type { Session } from '../sessions/session.js';

/** One remembered piece of an earlier conversation. */
export interface MemoryEntry {
  content: Content;
  /** Who said it: `'user'` or an agent's name. */
  author?: string;
  /** Milliseconds since the epoch. */
  timestamp?: number;
}

/**
 * How a search matches memories: `keyword` by shared words, `vector` by meaning (the embedder's
 * vectors, nearest first), `hybrid` both, merged by reciprocal rank fusion.
 */
export type MemorySearchMode = 'keyword' | 'vector' | 'hybrid';

export interface SearchMemoryParams {
  appName: string;
  userId: string;
  query: string;
  /**
   * How to match. `vector` needs the service to have an embedder (else a `ConfigurationError`).
   * @default 'hybrid' with an embedder, 'keyword' without
   */
  mode?: MemorySearchMode;
  /** The most memories to return, best first. @default the service's `maxResults` */
  limit?: number;
}

export interface SearchMemoryResponse {
  memories: MemoryEntry[];
}

/**
 * Long-term memory across sessions (ADK's memory service): sessions are added, and later searched
 * by the same user. A user's memories are never returned to another user. Every implementation
 * passes the shared contract suite (`memoryServiceContract` from `@troupe/core/testing/contracts`).
 */
export interface MemoryService {
  /** Remembers a session's conversation; adding the same session again replaces what it added before. */
  addSessionToMemory(session: Session): Promise<void>;
  searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse>;
  /**
   * Embeds every stored memory again with the service's embedder, after a switch of embedding
   * model (a store refuses vectors it cannot compare until then), and answers how many there were.
   * Services with an `embedder` option have it.
   */
  reindex?(): Promise<{ memories: number }>;
}
