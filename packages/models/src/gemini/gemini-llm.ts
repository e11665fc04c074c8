import { ConfigurationError, type ContextCache, type LlmRequest, type LlmResponse } from '@troupe/core';
import type { GoogleGenAI } from '@google/genai';
import { callCacheOf, checkModelCache, type ModelCache } from '../shared/context-cache.js';
import { fromEnv, requireApiKey } from '../shared/env.js';
import { messageOf, type FailureDetails, type ProviderIdentity } from '../shared/errors.js';
import {
  checkFields,
  checkModelName,
  checkOneOf,
  lazily,
  ProviderLlm,
  type ProviderLlmOptions,
} from '../shared/provider-llm.js';
import { loadSdk } from '../shared/sdk.js';
import { isRecord } from '../shared/tool-arguments.js';
import { GeminiContextCaches, type CachedCall } from './context-caches.js';
import { toGeminiRequest, type GeminiStructuredOutput } from './request.js';
import { GeminiAccumulator } from './response.js';

/** Options of {@link gemini} and {@link GeminiLlm}. */
export interface GeminiOptions extends ProviderLlmOptions {
  /** @default process.env.GEMINI_API_KEY, else process.env.GOOGLE_API_KEY */
  apiKey?: string;
  /** Use Vertex AI (Google Cloud credentials) instead of the Gemini API. @default process.env.GOOGLE_GENAI_USE_VERTEXAI === 'true' */
  vertexai?: boolean;
  /** The Google Cloud project, for Vertex AI. @default process.env.GOOGLE_CLOUD_PROJECT */
  project?: string;
  /** The Google Cloud region, for Vertex AI. @default process.env.GOOGLE_CLOUD_LOCATION, else 'global' */
  location?: string;
  /** Another endpoint (a proxy, a test server). */
  baseURL?: string;
  /** @default the SDK's ('v1beta' for the Gemini API) */
  apiVersion?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Time limit of one HTTP request. */
  timeoutMs?: number;
  /**
   * How `config.responseSchema` is requested: `'native'` as `responseJsonSchema` with
   * `responseMimeType: 'application/json'`; `'instruction'` in the system instruction; `'auto'`
   * natively except when tools are offered to a Gemini 1.x/2.x model, which refuses the two together.
   * @default 'auto'
   */
  structuredOutput?: GeminiStructuredOutput;
  /** GenerateContentConfig fields for every request, e.g. `{ thinkingConfig: { includeThoughts: true } }`. */
  config?: Record<string, unknown>;
  /**
   * Prompt caching with this model whatever the agent says (`false`: never): an explicit
   * `cachedContents` cache of the system instruction, tools and earlier turns; see "Prompt
   * caching" in docs/models.md and {@link GeminiLlm.deleteCaches}.
   * @default the agent's or the Runner's `contextCache`
   */
  contextCache?: ContextCache;
}

const KEY_VARIABLES = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/**
 * A Gemini model through `@google/genai` (the Gemini API, or Vertex AI with `vertexai: true`).
 * Needs the `@google/genai` package (an optional peer dependency, loaded on first use).
 *
 * @example
 * const model = new GeminiLlm('gemini-2.5-flash', { apiKey: process.env.GEMINI_API_KEY });
 */
export class GeminiLlm extends ProviderLlm {
  private readonly options: GeminiOptions;
  private readonly vertexai: boolean;
  private readonly cache: ModelCache;
  private readonly caches: GeminiContextCaches;
  private readonly client = lazily(() => this.createClient());

  constructor(model: string, options: GeminiOptions = {}) {
    super(checkModelName(model, 'gemini', 'gemini-2.5-flash').replace(/^models\//, ''), options.retry);
    checkOneOf('gemini', 'structuredOutput', options.structuredOutput, ['auto', 'native', 'instruction']);
    checkFields('gemini', 'config', options.config, 'GenerateContentConfig fields');
    this.cache = checkModelCache('gemini', 'Gemini', options.contextCache);
    this.options = options;
    this.caches = new GeminiContextCaches(this.model);
    this.vertexai = options.vertexai ?? fromEnv('GOOGLE_GENAI_USE_VERTEXAI')?.toLowerCase() === 'true';
  }

  protected get identity(): ProviderIdentity {
    return {
      provider: 'gemini',
      label: this.vertexai ? 'Gemini (Vertex AI)' : 'Gemini',
      keyHint: this.vertexai
        ? 'your Google Cloud credentials and project'
        : 'GEMINI_API_KEY or GOOGLE_API_KEY, or the apiKey option',
      secrets: [this.options.apiKey],
    };
  }

  private async createClient(): Promise<GoogleGenAI> {
    const { options } = this;
    const httpOptions = {
      ...(options.baseURL === undefined ? {} : { baseUrl: options.baseURL }),
      ...(options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    };
    let auth:
      { apiKey: string } | { vertexai: true; apiKey: string } | { vertexai: true; project: string; location: string };
    if (this.vertexai) {
      const project = options.project ?? fromEnv('GOOGLE_CLOUD_PROJECT');
      const location = options.location ?? fromEnv('GOOGLE_CLOUD_LOCATION') ?? 'global';
      if (project !== undefined) {
        auth = { vertexai: true, project, location };
      } else if (options.apiKey !== undefined) {
        // Vertex AI express mode: an API key instead of a project and credentials.
        auth = { vertexai: true, apiKey: options.apiKey };
      } else {
        throw new ConfigurationError(
          `Gemini on Vertex AI needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT or pass { project } to gemini('${this.model}').`,
        );
      }
    } else {
      auth = { apiKey: requireApiKey(options.apiKey, KEY_VARIABLES, 'Gemini', 'gemini') };
    }
    const { GoogleGenAI: Client } = await loadSdk('@google/genai', 'Gemini', () => import('@google/genai'));
    return new Client({ ...auth, httpOptions });
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const client = await this.client();
    const plain: CachedCall = toGeminiRequest(request, this.model, {
      structuredOutput: this.options.structuredOutput ?? 'auto',
      config: this.options.config,
    });
    const callCache = callCacheOf(request, this.cache);
    const { contents, config, writeTokens } = callCache
      ? await this.caches.prepare(client, plain, callCache, abortSignal)
      : plain;
    // The SDK's errors carry no headers; this keeps the failed response's, for Retry-After.
    const failed: { headers?: Headers } = {};
    const fetchKeepingHeaders: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!response.ok) failed.headers = response.headers;
      return response;
    };
    const details = (error: unknown): FailureDetails => this.failureDetails(error, failed.headers);
    const params = {
      model: this.model,
      contents,
      config: {
        ...config,
        automaticContinuation: false,
        httpOptions: { fetch: fetchKeepingHeaders },
        ...(abortSignal ? { abortSignal } : {}),
      },
    };
    const accumulator = new GeminiAccumulator();
    if (!stream) {
      accumulator.add(await this.send(abortSignal, () => client.models.generateContent(params), details));
    } else {
      const chunks = await this.send(abortSignal, () => client.models.generateContentStream(params), details);
      yield* this.streamTurn(chunks, accumulator, abortSignal, {
        unfinished: 'the stream ended before the model finished its turn (no finishReason)',
        requestUntilFirstChunk: true,
        details,
      });
    }
    // A turn that ended in MALFORMED_FUNCTION_CALL is a failed attempt: a new sample usually forms the call.
    if (accumulator.malformedCall) {
      throw this.fail(
        {
          message: 'the model could not form a valid function call (finishReason MALFORMED_FUNCTION_CALL)',
          retryable: true,
        },
        'response',
      );
    }
    const final = accumulator.final();
    if (writeTokens !== undefined) {
      final.usage = { ...(final.usage ?? { inputTokens: 0, outputTokens: 0 }), cacheWriteTokens: writeTokens };
    }
    yield final;
  }

  /**
   * Deletes the `cachedContents` caches this model created (with `contextCache` on), e.g. when the
   * app shuts down; caches not deleted expire by their ttl. Failures to delete are ignored.
   */
  async deleteCaches(): Promise<void> {
    if (this.caches.size === 0) return;
    await this.caches.deleteAll(await this.client());
  }

  protected override failureDetails(error: unknown, headers?: Headers): FailureDetails {
    const status = (error as { status?: unknown }).status;
    const body = parseErrorBody(error);
    const retryAfterMs = retryAfterHeader(headers) ?? body.retryDelayMs;
    return {
      status: typeof status === 'number' ? status : undefined,
      message: body.message ?? messageOf(error),
      retryAfterMs,
    };
  }
}

/** The SDK puts the JSON error body in the message: `{"error":{"code","message","status","details"}}`. */
function parseErrorBody(error: unknown): { message?: string; retryDelayMs?: number } {
  const text = error instanceof Error ? error.message : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  const inner = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  if (!inner) return {};
  const result: { message?: string; retryDelayMs?: number } = {};
  if (typeof inner.message === 'string') result.message = inner.message;
  for (const detail of Array.isArray(inner.details) ? inner.details : []) {
    // google.rpc.RetryInfo: { retryDelay: "1.5s" }
    if (isRecord(detail) && typeof detail.retryDelay === 'string') {
      const seconds = Number.parseFloat(detail.retryDelay);
      if (Number.isFinite(seconds)) result.retryDelayMs = seconds * 1000;
    }
  }
  return result;
}

function retryAfterHeader(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after');
  if (value === undefined || value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * A Gemini model, e.g. `gemini('gemini-2.5-flash')`. The key comes from `GEMINI_API_KEY` (or
 * `GOOGLE_API_KEY`) unless given; `vertexai: true` uses Google Cloud credentials instead.
 */
export function gemini(model: string, options: GeminiOptions = {}): GeminiLlm {
  return new GeminiLlm(model, options);
}
