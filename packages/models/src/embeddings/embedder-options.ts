import { ConfigurationError } from '@troupe/core';
import { checkFields, type ProviderLlmOptions } from '../shared/provider-llm.js';

/** Options every embedding adapter takes. */
export interface EmbedderOptions extends ProviderLlmOptions {
  /**
   * The length of the vectors. Every vector the provider returns is checked against it. Known
   * models have a default; for Gemini and OpenAI's `text-embedding-3-*` models a smaller value is
   * sent to the provider, which then returns shortened vectors.
   * @default the model's own size when the model is known; otherwise required
   */
  dimensions?: number;
  /**
   * The most texts sent in one request; longer lists are split into several requests, one after
   * the other. It can only lower the provider's own limit.
   * @default the provider's limit (OpenAI 2048, Gemini 100, Ollama and the AI SDK unlimited unless the model says)
   */
  maxBatchSize?: number;
}

/** Options of the adapters that speak HTTP themselves (OpenAI, Gemini, Ollama). */
export interface HttpEmbedderOptions extends EmbedderOptions {
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Time limit of one HTTP request, in milliseconds; a request over it is retried. @default none */
  timeoutMs?: number;
  /** The `fetch` to send requests with (a proxy agent, instrumentation). @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Throws unless the factory was given an options object; returns it. */
export function checkOptions<T>(factory: string, options: T, example: string): T {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      `${factory}() takes an options object such as ${example}; got ${JSON.stringify(options)}.`,
    );
  }
  return options;
}

/** Sizes of well-known embedding models, so that `dimensions` need not be given for them. */
export const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = Object.freeze({
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
});

/** The checked `dimensions`: the option, else the known model's size; a ConfigurationError when neither. */
export function resolveDimensions(factory: string, model: string, dimensions: unknown): number {
  if (dimensions === undefined) {
    const known = KNOWN_DIMENSIONS[model];
    if (known !== undefined) return known;
    throw new ConfigurationError(
      `${factory}() does not know the vector size of model '${model}'. Pass { dimensions } with the length of the model's vectors (e.g. 768 for nomic-embed-text, 1024 for mxbai-embed-large).`,
    );
  }
  return positiveInteger(factory, 'dimensions', dimensions, 'the length of the vectors the model returns');
}

/** The checked batch size: the option (at most `limit`), else `limit`. */
export function resolveBatchSize(
  factory: string,
  maxBatchSize: unknown,
  limit: number | undefined,
): number | undefined {
  if (maxBatchSize === undefined) return limit;
  const size = positiveInteger(factory, 'maxBatchSize', maxBatchSize, 'the most texts per request');
  if (limit !== undefined && size > limit) {
    throw new ConfigurationError(
      `${factory}() option maxBatchSize is ${size}, above the provider's limit of ${limit} texts per request; use ${limit} or less.`,
    );
  }
  return size;
}

/** Throws unless the option is a whole number of at least 1. */
export function positiveInteger(factory: string, option: string, value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(
      `${factory}() option ${option} is ${JSON.stringify(value)}; use a whole number of at least 1 (${what}).`,
    );
  }
  return value;
}

/** Throws unless the option is a usable http(s) URL; returns it without trailing slashes. */
export function checkBaseUrl(factory: string, baseURL: unknown, example: string): string {
  if (typeof baseURL === 'string') {
    try {
      const url = new URL(baseURL);
      if (url.protocol === 'http:' || url.protocol === 'https:') return baseURL.replace(/\/+$/, '');
    } catch {
      // Reported below with the fix.
    }
  }
  throw new ConfigurationError(
    `${factory}() option baseURL is ${JSON.stringify(baseURL)}; use an http(s) URL such as '${example}'.`,
  );
}

/** Throws unless the connection options (`fetch`, `timeoutMs`, `headers`) are usable. */
export function checkConnection(factory: string, options: HttpEmbedderOptions): void {
  const { fetch, timeoutMs, headers } = options as Record<string, unknown>;
  if (fetch !== undefined && typeof fetch !== 'function') {
    throw new ConfigurationError(
      `${factory}() option fetch is ${JSON.stringify(fetch)}; pass a fetch function or leave it out.`,
    );
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))) {
    throw new ConfigurationError(
      `${factory}() option timeoutMs is ${JSON.stringify(timeoutMs)}; use a number of milliseconds above 0, or leave it out for no limit.`,
    );
  }
  checkFields(factory, 'headers', headers, 'header names and values');
}
