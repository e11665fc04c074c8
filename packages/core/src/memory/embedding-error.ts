import { TroupeError } from '../errors.js';

/**
 * The embedding model failed to embed texts (the provider is down, a quota, a timeout): `cause` is
 * what the embedder threw. During an add the memories' text is stored all the same (found by words
 * at once) and they are embedded at the next add; memory services tell it to their `onError`, and
 * `AddSessionToMemoryPlugin` never fails a run for it. During a search by meaning the search fails
 * with it.
 */
export class EmbeddingError extends TroupeError {
  /** The embedder's `modelId`, when it has one. */
  readonly modelId: string | undefined;
  /** How many texts the failed call was to embed. */
  readonly texts: number;

  constructor(message: string, options: { cause: unknown; modelId?: string | undefined; texts: number }) {
    super('EMBEDDING_FAILED', message, { cause: options.cause });
    this.modelId = options.modelId;
    this.texts = options.texts;
  }
}
