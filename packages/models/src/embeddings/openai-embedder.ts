import type { EmbeddingModel } from '@troupe/core';
import { fromEnv, requireApiKey } from '../shared/env.js';
import type { ProviderIdentity } from '../shared/errors.js';
import { checkModelName } from '../shared/provider-llm.js';
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
import { postJson } from './post-json.js';

/** Options of {@link openaiEmbedder}. */
export interface OpenAiEmbedderOptions extends HttpEmbedderOptions {
  /** The embedding model, e.g. `'text-embedding-3-small'`. */
  model: string;
  /**
   * The key, sent as `Authorization: Bearer`. Required for OpenAI itself; a server at another
   * `baseURL` gets one only when there is one.
   * @default process.env.OPENAI_API_KEY
   */
  apiKey?: string;
  /**
   * OpenAI, or any server with an OpenAI-compatible `/embeddings` endpoint (vLLM, LM Studio, LiteLLM, ...).
   * @default process.env.OPENAI_BASE_URL, else 'https://api.openai.com/v1'
   */
  baseURL?: string;
  /** @default process.env.OPENAI_ORG_ID */
  organization?: string;
  /** @default process.env.OPENAI_PROJECT_ID */
  project?: string;
}

const FACTORY = 'openaiEmbedder';
const OPENAI_URL = 'https://api.openai.com/v1';
/** OpenAI takes at most 2048 inputs per request. */
const OPENAI_BATCH_LIMIT = 2048;

class OpenAiEmbedder extends BatchingEmbedder {
  private readonly url: string;
  private readonly sendDimensions: boolean;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    checkOptions(FACTORY, options, "{ model: 'text-embedding-3-small' }");
    const model = checkModelName(options.model, FACTORY, 'text-embedding-3-small');
    const url = checkBaseUrl(FACTORY, options.baseURL ?? fromEnv('OPENAI_BASE_URL') ?? OPENAI_URL, OPENAI_URL);
    const identity: ProviderIdentity = {
      provider: 'openai',
      label: url === OPENAI_URL ? 'OpenAI' : `OpenAI-compatible server at ${url}`,
      keyHint: 'OPENAI_API_KEY or the apiKey option',
      secrets: [options.apiKey],
    };
    super({
      factory: FACTORY,
      model,
      identity,
      dimensions: resolveDimensions(FACTORY, model, options.dimensions),
      maxBatchSize: resolveBatchSize(FACTORY, options.maxBatchSize, OPENAI_BATCH_LIMIT),
      retry: options.retry,
    });
    checkConnection(FACTORY, options);
    this.url = url;
    // Only the text-embedding-3 models can shorten their vectors; ada-002 and most compatible
    // servers reject the field, so it is sent only where it means something.
    this.sendDimensions = options.dimensions !== undefined && model.startsWith('text-embedding-3');
  }

  protected async embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    const { options } = this;
    // Read at each call (not at construction) so a key set later in the process is used.
    const apiKey =
      this.url === OPENAI_URL
        ? requireApiKey(options.apiKey, ['OPENAI_API_KEY'], 'OpenAI', FACTORY)
        : (options.apiKey ?? fromEnv('OPENAI_API_KEY'));
    const organization = options.organization ?? fromEnv('OPENAI_ORG_ID');
    const project = options.project ?? fromEnv('OPENAI_PROJECT_ID');
    const answer = await postJson(this.identity, this.model, {
      url: `${this.url}/embeddings`,
      headers: {
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
        ...(organization === undefined ? {} : { 'openai-organization': organization }),
        ...(project === undefined ? {} : { 'openai-project': project }),
      },
      body: {
        model: this.model,
        input: texts,
        encoding_format: 'float',
        ...(this.sendDimensions ? { dimensions: this.dimensions } : {}),
      },
      signal,
      connection: options,
      readError: (body) => ({
        message:
          isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string'
            ? body.error.message
            : undefined,
      }),
    });
    const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : undefined;
    if (data === undefined) return [];
    // The API documents `index` as the input's position; order by it rather than trusting array order.
    return [...data]
      .map((item: unknown) => (isRecord(item) ? item : {}))
      .sort((a, b) => Number(a.index) - Number(b.index))
      .map((item) => item.embedding);
  }
}

/**
 * Embeddings from OpenAI's `/embeddings` endpoint (or any OpenAI-compatible server at `baseURL`).
 * The key comes from `OPENAI_API_KEY` unless given. Known models know their size
 * (`text-embedding-3-small` 1536, `text-embedding-3-large` 3072, `text-embedding-ada-002` 1536);
 * others need `dimensions`. Lists over 2048 texts are sent in several requests.
 *
 * @example
 * const memory = new SqliteMemoryService({ path: 'memory.db', embedder: openaiEmbedder({ model: 'text-embedding-3-small' }) });
 */
export function openaiEmbedder(options: OpenAiEmbedderOptions): EmbeddingModel {
  return new OpenAiEmbedder(options);
}
