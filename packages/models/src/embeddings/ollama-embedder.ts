import type { EmbeddingModel } from '@troupe/core';
import { fromEnv } from '../shared/env.js';
import { isRecord } from '../shared/tool-arguments.js';
import { ollamaBaseUrl } from '../openai/openai-llm.js';
import { checkModelName } from '../shared/provider-llm.js';
import { BatchingEmbedder } from './batching-embedder.js';
import {
  checkBaseUrl,
  checkConnection,
  checkOptions,
  positiveInteger,
  resolveBatchSize,
  type HttpEmbedderOptions,
} from './embedder-options.js';
import { postJson } from './post-json.js';

/** Options of {@link ollamaEmbedder}. */
export interface OllamaEmbedderOptions extends HttpEmbedderOptions {
  /** The embedding model as Ollama names it, e.g. `'nomic-embed-text'` (pull it first: `ollama pull nomic-embed-text`). */
  model: string;
  /** The length of the model's vectors (768 for nomic-embed-text, 1024 for mxbai-embed-large, 384 for all-minilm). */
  dimensions: number;
  /** The Ollama server (`host`, `host:port` or a URL). @default process.env.OLLAMA_HOST, else 'http://127.0.0.1:11434' */
  baseURL?: string;
}

const FACTORY = 'ollamaEmbedder';

class OllamaEmbedder extends BatchingEmbedder {
  private readonly url: string;

  constructor(private readonly options: OllamaEmbedderOptions) {
    checkOptions(FACTORY, options, "{ model: 'nomic-embed-text', dimensions: 768 }");
    const model = checkModelName(options.model, FACTORY, 'nomic-embed-text');
    super({
      factory: FACTORY,
      model,
      identity: { provider: 'ollama', label: 'Ollama' },
      dimensions: positiveInteger(
        FACTORY,
        'dimensions',
        options.dimensions,
        "the length of the model's vectors, e.g. 768 for nomic-embed-text",
      ),
      maxBatchSize: resolveBatchSize(FACTORY, options.maxBatchSize, undefined),
      retry: options.retry,
    });
    checkConnection(FACTORY, options);
    if (options.baseURL !== undefined && typeof options.baseURL !== 'string')
      checkBaseUrl(FACTORY, options.baseURL, 'http://127.0.0.1:11434');
    // The same host rules as the ollama() chat model; the native API is beside its /v1.
    const host = ollamaBaseUrl(options.baseURL ?? fromEnv('OLLAMA_HOST')).replace(/\/v1$/, '');
    this.url = `${checkBaseUrl(FACTORY, host, 'http://127.0.0.1:11434')}/api/embed`;
  }

  protected async embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<unknown[]> {
    const { options } = this;
    const answer = await postJson(this.identity, this.model, {
      url: this.url,
      headers: {},
      body: { model: this.model, input: texts },
      signal,
      connection: options,
      readError: (body) => ({ message: isRecord(body) && typeof body.error === 'string' ? body.error : undefined }),
    });
    return isRecord(answer) && Array.isArray(answer.embeddings) ? answer.embeddings : [];
  }
}

/**
 * Embeddings from a local Ollama server's `/api/embed`. No key is needed; `dimensions` is required
 * because Ollama serves many models of different sizes.
 *
 * @example
 * const embedder = ollamaEmbedder({ model: 'nomic-embed-text', dimensions: 768 });
 */
export function ollamaEmbedder(options: OllamaEmbedderOptions): EmbeddingModel {
  return new OllamaEmbedder(options);
}
