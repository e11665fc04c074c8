import { ConfigurationError, type EmbeddingModel } from '@troupe/core';
import { messageOf, providerError, throwIfAborted, type FailureDetails } from '../shared/errors.js';
import { isRecord } from '../shared/tool-arguments.js';
import { BatchingEmbedder } from './batching-embedder.js';
import { checkOptions, resolveBatchSize, resolveDimensions, type EmbedderOptions } from './embedder-options.js';

/**
 * A Vercel AI SDK embedding model (specification v2, v3 or v4, as in `ai` 5, 6 and 7), e.g.
 * `openai.embedding('text-embedding-3-small')` from `@ai-sdk/openai`. Only the part this adapter
 * calls is named here, so any provider package fits.
 */
export interface AiSdkEmbeddingModel {
  readonly specificationVersion: 'v2' | 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  /** The provider's limit of texts per call (`Infinity` or undefined for none). */
  readonly maxEmbeddingsPerCall: PromiseLike<number | undefined> | number | undefined;
  doEmbed(options: { values: string[]; abortSignal?: AbortSignal; dimensions?: number }): PromiseLike<{
    embeddings: number[][];
  }>;
}

/** Options of {@link aiSdkEmbedder}. */
export type AiSdkEmbedderOptions = EmbedderOptions;

const FACTORY = 'aiSdkEmbedder';

class AiSdkEmbedder extends BatchingEmbedder {
  private limit: Promise<number | undefined> | undefined;

  constructor(
    private readonly embeddingModel: AiSdkEmbeddingModel,
    private readonly options: AiSdkEmbedderOptions,
  ) {
    super({
      factory: FACTORY,
      model: embeddingModel.modelId,
      identity: {
        provider: embeddingModel.provider,
        label: `AI SDK provider '${embeddingModel.provider}'`,
        keyHint: "the provider's API key",
      },
      dimensions: resolveDimensions(FACTORY, embeddingModel.modelId, options.dimensions),
      maxBatchSize: resolveBatchSize(FACTORY, options.maxBatchSize, finiteLimit(embeddingModel.maxEmbeddingsPerCall)),
      retry: options.retry,
    });
  }

  /** The provider may give its limit only as a promise; the smaller of it and the option wins. */
  protected override batchLimit(): Promise<number | undefined> {
    this.limit ??= Promise.resolve(this.embeddingModel.maxEmbeddingsPerCall).then((own) => {
      const limits = [finiteLimit(own), this.maxBatchSize].filter((n): n is number => n !== undefined);
      return limits.length === 0 ? undefined : Math.min(...limits);
    });
    return this.limit;
  }

  protected async embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    const model = this.embeddingModel;
    // Spec v4 can shorten vectors itself; v2 and v3 providers take the size from their own settings.
    const dimensions = model.specificationVersion === 'v4' && this.options.dimensions !== undefined;
    try {
      const result = await model.doEmbed({
        values: texts,
        ...(signal === undefined ? {} : { abortSignal: signal }),
        ...(dimensions ? { dimensions: this.dimensions } : {}),
      });
      return Array.isArray(result.embeddings) ? result.embeddings : [];
    } catch (error) {
      throwIfAborted(signal);
      if (error instanceof ConfigurationError) throw error;
      // The cause keeps the APICallError, whose responseHeaders the retry policy reads for Retry-After.
      throw providerError(this.identity, this.model, failureDetails(error), error);
    }
  }
}

/** An AI SDK `APICallError` carries `statusCode` and `isRetryable`; other errors only a message. */
function failureDetails(error: unknown): FailureDetails {
  const { statusCode, isRetryable } = isRecord(error) ? error : {};
  return {
    status: typeof statusCode === 'number' ? statusCode : undefined,
    message: messageOf(error),
    retryable: typeof isRetryable === 'boolean' ? isRetryable : undefined,
  };
}

function finiteLimit(limit: unknown): number | undefined {
  return typeof limit === 'number' && Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : undefined;
}

/**
 * Any Vercel AI SDK embedding model as a Troupe {@link EmbeddingModel}, called through its
 * `doEmbed`. The provider package does the HTTP; this adapter batches by the model's
 * `maxEmbeddingsPerCall`, retries as the chat adapters do and checks the vectors' size.
 * `dimensions` is needed unless the model is a known one (`text-embedding-3-small`, ...).
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai';
 * const embedder = aiSdkEmbedder(createOpenAI().embedding('text-embedding-3-small'));
 */
export function aiSdkEmbedder(model: AiSdkEmbeddingModel, options: AiSdkEmbedderOptions = {}): EmbeddingModel {
  if (!isRecord(model) || typeof (model as { doEmbed?: unknown }).doEmbed !== 'function') {
    throw new ConfigurationError(
      `${FACTORY}() needs an AI SDK embedding model such as openai.embedding('text-embedding-3-small') from '@ai-sdk/openai'; got ${JSON.stringify(model)?.slice(0, 200)}.`,
    );
  }
  const version: unknown = model.specificationVersion;
  if (version !== 'v2' && version !== 'v3' && version !== 'v4') {
    throw new ConfigurationError(
      `${FACTORY}() supports AI SDK embedding models of specification v2, v3 and v4 (ai 5 to 7); this one is ${JSON.stringify(version)}. Update the provider package (@ai-sdk/...).`,
    );
  }
  return new AiSdkEmbedder(model, checkOptions(FACTORY, options, '{ dimensions: 1536 }'));
}
