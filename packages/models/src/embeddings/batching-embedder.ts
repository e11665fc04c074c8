import { ConfigurationError, type EmbeddingModel, type EmbedOptions, type RetryOptions } from '@troupe/core';
import { providerError, throwIfAborted, type ProviderIdentity } from '../shared/errors.js';
import { retryingCall, type RetryingCall } from './retry-call.js';

/** What a {@link BatchingEmbedder} is told by its adapter. */
export interface BatchingSettings {
  /** The factory's name, for error messages (`openaiEmbedder`). */
  factory: string;
  /** The provider's model name. */
  model: string;
  identity: ProviderIdentity;
  dimensions: number;
  /** The most texts per request; undefined for no limit. */
  maxBatchSize: number | undefined;
  retry: RetryOptions | false | undefined;
}

/**
 * The part every embedding adapter shares: it splits the texts into batches, sends each with
 * retries, honours the abort signal and checks that the provider returned one vector of the
 * promised length per text. An adapter implements {@link embedBatch}, one request.
 */
export abstract class BatchingEmbedder implements EmbeddingModel {
  readonly dimensions: number;
  readonly modelId: string;
  readonly maxBatchSize: number | undefined;
  protected readonly model: string;
  protected readonly identity: ProviderIdentity;
  private readonly factory: string;
  private readonly retrying: RetryingCall;

  protected constructor(settings: BatchingSettings) {
    this.factory = settings.factory;
    this.model = settings.model;
    this.identity = settings.identity;
    this.dimensions = settings.dimensions;
    this.maxBatchSize = settings.maxBatchSize;
    this.modelId = `${settings.identity.provider}:${settings.model}`;
    this.retrying = retryingCall(this.modelId, settings.retry);
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<number[][]> {
    const { signal } = options;
    if (!Array.isArray(texts) || texts.some((text) => typeof text !== 'string')) {
      throw new ConfigurationError(
        `${this.modelId} embed() takes an array of strings; got ${JSON.stringify(texts)?.slice(0, 200)}.`,
      );
    }
    throwIfAborted(signal);
    const vectors: number[][] = [];
    const size = (await this.batchLimit()) ?? texts.length;
    for (let start = 0; start < texts.length; start += size) {
      const batch = texts.slice(start, start + size);
      const answer = await this.retrying(() => this.embedBatch(batch, signal), signal);
      vectors.push(...this.checked(answer, batch.length, start));
    }
    return vectors;
  }

  /** One request: a vector per text, in the texts' order. */
  protected abstract embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<unknown[]>;

  /** The batch size to split by; an adapter whose limit is only known later overrides it. */
  protected batchLimit(): Promise<number | undefined> | number | undefined {
    return this.maxBatchSize;
  }

  private checked(answer: unknown[], expected: number, offset: number): number[][] {
    if (answer.length !== expected) {
      throw this.unusable(`it returned ${answer.length} vectors for ${expected} texts`);
    }
    answer.forEach((vector, i) => {
      if (!Array.isArray(vector) || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw this.unusable(`vector ${offset + i} is not a list of numbers`);
      }
      if (vector.length !== this.dimensions) {
        throw new ConfigurationError(
          `${this.factory}('${this.model}') expects vectors of ${this.dimensions} dimensions, but the provider returned ${vector.length} (text ${offset + i}). Set { dimensions: ${vector.length} } if that is the model's size, or check the model name; vectors of another size cannot be compared with the stored ones.`,
        );
      }
    });
    return answer as number[][];
  }

  private unusable(message: string): Error {
    return providerError(this.identity, this.model, { message, retryable: false }, undefined, 'response');
  }
}
