import type { EmbeddingModel } from '@troupe/core';
import { ConfigurationError } from '@troupe/core';
import { checkListener } from '@troupe/core/stores';
import type { PostgresSessionServiceOptions } from './options.js';

/** Options of `PostgresMemoryService`: those of `PostgresSessionService`, and memory's own. */
export interface PostgresMemoryServiceOptions extends PostgresSessionServiceOptions {
  /** The most memories one search returns, best first (a search's `limit` overrides it). @default 10 */
  maxResults?: number;
  /**
   * Turns memories into vectors, so that `searchMemory` finds them by meaning (`mode: 'vector'` or
   * `'hybrid'`) as well as by words. Each memory is embedded once, when its turn is added; the
   * table records the model's `modelId` and `dimensions`, and a service with an embedder of another
   * length is refused until `PostgresMemoryService.reindex()`.
   */
  embedder?: EmbeddingModel;
  /**
   * Whether to use pgvector: `true` runs `CREATE EXTENSION IF NOT EXISTS vector` when the memories
   * table first gets vectors, and stores them as `vector` searched with `<=>` when it works; else
   * (or with `false`) vectors are `real[]` and searched exactly in SQL. A table keeps the column
   * type it got; `false` searches a `vector` column exactly too.
   * @default true
   */
  vectorExtension?: boolean;
  /**
   * Told, once per service, when pgvector was asked for and could not be used (the message names
   * the reason). Library code never logs; pass e.g. `console.warn`.
   */
  onWarning?: (message: string) => void;
  /**
   * Told when embedding the memories of an add fails (the provider is down, a quota, a wrong vector
   * length): the add then resolves, its text stored and found by words at once, and its vectors
   * are made at the next add. Without it, `addSessionToMemory` rejects with the failure, after
   * storing the text all the same.
   */
  onError?: (error: unknown) => void;
}

/** Checks the vector options (the embedder is checked by core's `checkEmbedder`). */
export function checkVectorOptions({ vectorExtension, onWarning, onError }: PostgresMemoryServiceOptions): void {
  if (vectorExtension !== undefined && typeof vectorExtension !== 'boolean')
    throw new ConfigurationError(
      `PostgresMemoryService option 'vectorExtension' must be true or false; got ${JSON.stringify(vectorExtension)}. Omit it to use pgvector when the server has it.`,
    );
  checkListener(onWarning, 'onWarning', 'PostgresMemoryService');
  checkListener(onError, 'onError', 'PostgresMemoryService');
}
