import type { EmbeddingModel } from '@troupe/core';
import { ConfigurationError } from '@troupe/core';
import { checkListener } from '@troupe/core/stores';
import type { SqliteSessionServiceOptions } from './options.js';

/** Options of `SqliteMemoryService`: the file options of `SqliteSessionService`, and memory's own. */
export interface SqliteMemoryServiceOptions extends SqliteSessionServiceOptions {
  /** The most memories one search returns, best first (a search's `limit` overrides it). @default 10 */
  maxResults?: number;
  /**
   * Turns memories into vectors, so that `searchMemory` finds them by meaning (`mode: 'vector'` or
   * `'hybrid'`) as well as by words. Each memory is embedded once, when its turn is added; the file
   * records the model's `modelId` and `dimensions`, and a service with an embedder of another length
   * is refused until `SqliteMemoryService.reindex()`.
   */
  embedder?: EmbeddingModel;
  /**
   * Where vector search comes from: `true` loads the `sqlite-vec` extension the package installed
   * for this platform (KNN search in a `vec0` table); a string is the path of a sqlite-vec loadable
   * file to load instead; `false` does not load it, and every search compares the query with each
   * of the user's stored vectors (exact, and fine for thousands of memories per user). When it
   * cannot be loaded the service uses exact search too, tells `onWarning` once, and says so in
   * `SqliteMemoryService.vectorSearch`.
   * @default true
   */
  vectorExtension?: boolean | string;
  /**
   * Told, once per service, when vector search falls back to exact search because sqlite-vec could
   * not be loaded (the message names the reason). Library code never logs; pass e.g. `console.warn`.
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
export function checkVectorOptions({ vectorExtension, onWarning, onError }: SqliteMemoryServiceOptions): void {
  if (
    vectorExtension !== undefined &&
    typeof vectorExtension !== 'boolean' &&
    (typeof vectorExtension !== 'string' || vectorExtension === '')
  )
    throw new ConfigurationError(
      `SqliteMemoryService option 'vectorExtension' must be true, false or the path of a sqlite-vec loadable file; got ${JSON.stringify(vectorExtension)}. Omit it to load the sqlite-vec package's binary.`,
    );
  checkListener(onWarning, 'onWarning', 'SqliteMemoryService');
  checkListener(onError, 'onError', 'SqliteMemoryService');
}
