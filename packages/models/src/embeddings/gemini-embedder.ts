import type { EmbeddingModel } from '@troupe/core';
import { requireApiKey } from '../shared/env.js';
import { checkModelName, checkOneOf } from '../shared/provider-llm.js';
import { isRecord } from '../shared/tool-arguments.js';
import { BatchingEmbedder } from './batching-embedder.js';
import {
  checkBaseUrl,
  checkConnection,
  checkOptions,
  resolveBatchSize,
  resolveDimensions,
  type HttpEmbedderOptions,
} from './embedder-options.js';
import { postJson, type ErrorBodyDetails } from './post-json.js';

/** What the embeddings will be used for; Gemini tunes them to it. */
export type GeminiEmbeddingTaskType =
  | 'RETRIEVAL_QUERY'
  | 'RETRIEVAL_DOCUMENT'
  | 'SEMANTIC_SIMILARITY'
  | 'CLASSIFICATION'
  | 'CLUSTERING'
  | 'QUESTION_ANSWERING'
  | 'FACT_VERIFICATION'
  | 'CODE_RETRIEVAL_QUERY';

const TASK_TYPES: readonly GeminiEmbeddingTaskType[] = [
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
];

/** Options of {@link geminiEmbedder}. */
export interface GeminiEmbedderOptions extends HttpEmbedderOptions {
  /** The embedding model, e.g. `'gemini-embedding-001'` (a `models/` prefix is accepted). */
  model: string;
  /** Sent as `x-goog-api-key`. @default process.env.GEMINI_API_KEY, else process.env.GOOGLE_API_KEY */
  apiKey?: string;
  /** Another endpoint (a proxy, a test server). @default 'https://generativelanguage.googleapis.com' */
  baseURL?: string;
  /** @default 'v1beta' */
  apiVersion?: string;
  /**
   * The task the vectors serve, sent with every text. Memory stores both the memories and the
   * queries with one embedder, so a symmetric task (`'SEMANTIC_SIMILARITY'`) or none suits it.
   * @default none (the model's default)
   */
  taskType?: GeminiEmbeddingTaskType;
}

const FACTORY = 'geminiEmbedder';
const GEMINI_URL = 'https://generativelanguage.googleapis.com';
/** batchEmbedContents takes at most 100 requests per call. */
const GEMINI_BATCH_LIMIT = 100;

class GeminiEmbedder extends BatchingEmbedder {
  private readonly url: string;

  constructor(private readonly options: GeminiEmbedderOptions) {
    checkOptions(FACTORY, options, "{ model: 'gemini-embedding-001' }");
    const model = checkModelName(options.model, FACTORY, 'gemini-embedding-001').replace(/^models\//, '');
    checkOneOf(FACTORY, 'taskType', options.taskType, TASK_TYPES);
    super({
      factory: FACTORY,
      model,
      identity: {
        provider: 'gemini',
        label: 'Gemini',
        keyHint: 'GEMINI_API_KEY or GOOGLE_API_KEY, or the apiKey option',
        secrets: [options.apiKey],
      },
      dimensions: resolveDimensions(FACTORY, model, options.dimensions),
      maxBatchSize: resolveBatchSize(FACTORY, options.maxBatchSize, GEMINI_BATCH_LIMIT),
      retry: options.retry,
    });
    checkConnection(FACTORY, options);
    const base = checkBaseUrl(FACTORY, options.baseURL ?? GEMINI_URL, GEMINI_URL);
    this.url = `${base}/${options.apiVersion ?? 'v1beta'}/models/${encodeURIComponent(model)}:batchEmbedContents`;
  }

  protected async embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    const { options } = this;
    const apiKey = requireApiKey(options.apiKey, ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], 'Gemini', FACTORY);
    const answer = await postJson(this.identity, this.model, {
      url: this.url,
      headers: { 'x-goog-api-key': apiKey },
      body: {
        requests: texts.map((text) => ({
          model: `models/${this.model}`,
          content: { parts: [{ text }] },
          // Only when asked for: the older models (embedding-001) refuse the field.
          ...(options.dimensions === undefined ? {} : { outputDimensionality: this.dimensions }),
          ...(options.taskType === undefined ? {} : { taskType: options.taskType }),
        })),
      },
      signal,
      connection: options,
      readError: geminiError,
    });
    const embeddings = isRecord(answer) && Array.isArray(answer.embeddings) ? answer.embeddings : [];
    // The response lists the embeddings in the order of the requests.
    return embeddings.map((item: unknown) => (isRecord(item) ? item.values : undefined));
  }
}

/** `{ error: { code, message, status, details: [{ '@type': '...RetryInfo', retryDelay: '1.5s' }] } }` */
function geminiError(body: unknown): ErrorBodyDetails {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error === undefined) return {};
  const details: ErrorBodyDetails = { message: typeof error.message === 'string' ? error.message : undefined };
  for (const detail of Array.isArray(error.details) ? error.details : []) {
    if (isRecord(detail) && typeof detail.retryDelay === 'string') {
      const seconds = Number.parseFloat(detail.retryDelay);
      if (Number.isFinite(seconds)) details.retryAfterMs = seconds * 1000;
    }
  }
  return details;
}

/**
 * Embeddings from the Gemini API's `batchEmbedContents` (up to 100 texts per request; longer lists
 * are split). The key comes from `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) unless given. Known models
 * know their size (`gemini-embedding-001` 3072, `text-embedding-004` 768); a smaller `dimensions` is
 * sent as `outputDimensionality`.
 *
 * @example
 * const memory = new InMemoryMemoryService({ embedder: geminiEmbedder({ model: 'gemini-embedding-001', dimensions: 768 }) });
 */
export function geminiEmbedder(options: GeminiEmbedderOptions): EmbeddingModel {
  return new GeminiEmbedder(options);
}
