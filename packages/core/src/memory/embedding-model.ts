/** Options of one {@link EmbeddingModel.embed} call. */
export interface EmbedOptions {
  /** Cancels the call (the request is aborted and `embed` rejects). */
  signal?: AbortSignal;
}

/**
 * Turns texts into vectors whose closeness says how related the texts are (semantic memory). Memory
 * services given one (`new InMemoryMemoryService({ embedder })`) store a vector per memory and can
 * search by meaning. Adapters: `openaiEmbedder`, `geminiEmbedder`, `ollamaEmbedder` and
 * `aiSdkEmbedder` in `@troupe/models`; `FakeEmbedder` in `@troupe/core/testing` for tests.
 */
export interface EmbeddingModel {
  /** The length of every vector `embed` returns. A store refuses vectors of another length. */
  readonly dimensions: number;
  /**
   * Names the model (e.g. `'openai:text-embedding-3-small'`); stores keep it beside the vectors so
   * that a switch of model is noticed rather than mixing incomparable vectors.
   */
  readonly modelId?: string;
  /** The most texts one `embed` call takes; callers split longer lists. @default unlimited */
  readonly maxBatchSize?: number;
  /** One vector per text, in the texts' order. */
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]>;
}
