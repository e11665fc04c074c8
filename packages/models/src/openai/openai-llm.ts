import { ConfigurationError, type ContextCache, type LlmRequest, type LlmResponse } from '@troupe/core';
import type OpenAI from 'openai';
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
import { isRecord } from '../shared/tool-arguments.js';
import { openOpenAiClient, withPromptCacheKey } from './openai-client.js';
import { toChatRequest, type ChatRequestSettings } from './request.js';
import { ChatStreamAccumulator, fromChatCompletion } from './response.js';
import { openaiResponses } from './responses/responses-llm.js';

/** Options of {@link openai} and {@link OpenAiLlm}. */
export interface OpenAiOptions extends ProviderLlmOptions {
  /** @default process.env.OPENAI_API_KEY */
  apiKey?: string;
  /** Any OpenAI-compatible server (vLLM, LM Studio, llama.cpp, Together, ...). @default 'https://api.openai.com/v1' */
  baseURL?: string;
  /** @default process.env.OPENAI_ORG_ID */
  organization?: string;
  /** @default process.env.OPENAI_PROJECT_ID */
  project?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Time limit of one HTTP request. @default 600000 (the SDK's) */
  timeoutMs?: number;
  /**
   * `'native'` sends `config.responseSchema` as a `json_schema` response format (strict when the
   * schema allows it); `'instruction'` writes the schema into the system instruction, for servers
   * without JSON-schema output.
   * @default 'native'
   */
  structuredOutput?: 'native' | 'instruction';
  /**
   * The request field for `maxOutputTokens`. OpenAI's reasoning models accept only
   * `max_completion_tokens`; older compatible servers know only `max_tokens`.
   * @default 'max_completion_tokens' for openai(), 'max_tokens' for ollama() and openaiCompatible()
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Fields added to every request body, e.g. `{ reasoning_effort: 'low' }`; `config.providerOptions.openai` wins over them. */
  body?: Record<string, unknown>;
  /**
   * Prompt caching with this model whatever the agent says (`false`: never). OpenAI caches every
   * long prompt by itself; caching adds a `prompt_cache_key` per session and agent so a
   * conversation's turns meet the same cache. `ttl` and `minTokens` are errors here (OpenAI
   * decides both). See "Prompt caching" in docs/models.md.
   * @default the agent's or the Runner's `contextCache` (sent to OpenAI itself; a compatible server gets the key only when this is set)
   */
  contextCache?: ContextCache;
}

/** Who the server is; set by the factory functions. */
export interface OpenAiFlavor {
  provider: string;
  label: string;
  /** Environment variables holding the key, in order. */
  keyVariables: readonly string[];
  /** Whether a call without a key is an error (local servers need none). */
  keyRequired: boolean;
  factory: string;
}

const OPENAI: OpenAiFlavor = {
  provider: 'openai',
  label: 'OpenAI',
  keyVariables: ['OPENAI_API_KEY'],
  keyRequired: true,
  factory: 'openai',
};

/**
 * A model served through the OpenAI Chat Completions API: OpenAI itself or any compatible server.
 * Needs the `openai` package (an optional peer dependency, loaded on first use).
 *
 * @example
 * const model = new OpenAiLlm('gpt-4o-mini', { apiKey: process.env.OPENAI_API_KEY });
 */
export class OpenAiLlm extends ProviderLlm {
  private readonly options: OpenAiOptions;
  private readonly flavor: OpenAiFlavor;
  private readonly settings: ChatRequestSettings;
  private readonly cache: ModelCache;
  private readonly client = lazily(() => this.createClient());

  constructor(model: string, options: OpenAiOptions = {}, flavor: OpenAiFlavor = OPENAI) {
    super(checkModelName(model, flavor.factory, 'gpt-4o-mini'), options.retry);
    checkOneOf(flavor.factory, 'structuredOutput', options.structuredOutput, ['native', 'instruction']);
    checkFields(flavor.factory, 'body', options.body, 'request fields');
    this.cache = checkOpenAiCache(flavor, options.contextCache);
    this.options = options;
    this.flavor = flavor;
    this.settings = {
      provider: flavor.provider,
      maxTokensField: options.maxTokensField ?? (flavor.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens'),
      structuredOutput: options.structuredOutput ?? 'native',
      body: options.body,
    };
  }

  protected get identity(): ProviderIdentity {
    const keyHint = this.flavor.keyRequired
      ? `${this.flavor.keyVariables.join(' or ')} or the apiKey option`
      : undefined;
    return { provider: this.flavor.provider, label: this.flavor.label, keyHint, secrets: [this.options.apiKey] };
  }

  /**
   * The `prompt_cache_key` of a call: OpenAI itself takes it when the agent caches; another
   * server only when its model was told to (`contextCache`), as not all of them accept the field.
   */
  private cacheKeyOf(request: LlmRequest): string | undefined {
    if (this.cache === false) return undefined;
    if (this.cache === undefined && this.flavor.provider !== 'openai') return undefined;
    return callCacheOf(request, this.cache)?.key;
  }

  private async createClient(): Promise<OpenAI> {
    const { flavor, options } = this;
    const apiKey = flavor.keyRequired
      ? requireApiKey(options.apiKey, flavor.keyVariables, flavor.label, flavor.factory)
      : (options.apiKey ?? fromEnv(...flavor.keyVariables) ?? 'not-needed');
    return openOpenAiClient(apiKey, options, flavor.label);
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const client = await this.client();
    const body = toChatRequest(request, this.model, this.settings);
    withPromptCacheKey(body, this.cacheKeyOf(request));
    if (!stream) {
      yield fromChatCompletion(
        await this.send(abortSignal, () =>
          client.chat.completions.create({ ...body, stream: false }, { signal: abortSignal }),
        ),
      );
      return;
    }
    const chunks = await this.send(abortSignal, () =>
      client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: abortSignal },
      ),
    );
    const accumulator = new ChatStreamAccumulator();
    yield* this.streamTurn(chunks, accumulator, abortSignal, {
      unfinished: 'the stream ended before the model finished its turn (no finish_reason)',
    });
    yield accumulator.final();
  }

  protected override failureDetails(error: unknown): FailureDetails {
    const { status, error: body } = error as { status?: unknown; error?: unknown };
    const bodyMessage = isRecord(body) && typeof body.message === 'string' ? body.message : undefined;
    return { status: typeof status === 'number' ? status : undefined, message: bodyMessage ?? messageOf(error) };
  }
}

/**
 * An OpenAI model through the Chat Completions API, e.g. `openai('gpt-4o-mini')`. The key comes
 * from `OPENAI_API_KEY` unless given; `baseURL` points it at any OpenAI-compatible server.
 * `openai.responses('gpt-5-mini')` is a model on the Responses API instead.
 */
export function openai(model: string, options: OpenAiOptions = {}): OpenAiLlm {
  return new OpenAiLlm(model, options);
}

/** The same model through the Responses API: `openai.responses('gpt-5-mini', options)` (see {@link openaiResponses}). */
openai.responses = openaiResponses;

/** Options of {@link ollama}. */
export interface OllamaOptions extends Omit<OpenAiOptions, 'baseURL'> {
  /** The Ollama server. @default process.env.OLLAMA_HOST, else 'http://127.0.0.1:11434' */
  host?: string;
}

/**
 * A model served by a local Ollama through its OpenAI-compatible endpoint (`<host>/v1`), e.g.
 * `ollama('llama3.2')`. No key is needed.
 */
export function ollama(model: string, options: OllamaOptions = {}): OpenAiLlm {
  const { host, ...rest } = options;
  const flavor: OpenAiFlavor = {
    provider: 'ollama',
    label: 'Ollama',
    keyVariables: ['OLLAMA_API_KEY'],
    keyRequired: false,
    factory: 'ollama',
  };
  return new OpenAiLlm(model, { ...rest, baseURL: ollamaBaseUrl(host ?? fromEnv('OLLAMA_HOST')) }, flavor);
}

/** A chat model's own `contextCache`: Ollama caches prompts by itself, and no OpenAI-style server takes a ttl. */
function checkOpenAiCache(flavor: OpenAiFlavor, value: unknown): ModelCache {
  if (flavor.provider === 'ollama' && value !== undefined) {
    throw new ConfigurationError(
      `ollama() option contextCache is not supported by Ollama: it keeps the last prompt's prefix by itself (see OLLAMA_KEEP_ALIVE). Remove the option.`,
    );
  }
  const why = `${flavor.label} caches long prompts automatically and decides how long.`;
  return checkModelCache(flavor.factory, flavor.label, value, {
    ttl: why,
    minTokens: why,
  });
}

/** `OLLAMA_HOST` may be `host`, `host:port` or a URL; the OpenAI-compatible API is under `/v1`. */
export function ollamaBaseUrl(host: string | undefined): string {
  let url = (host ?? 'http://127.0.0.1:11434').trim();
  if (!/^https?:\/\//i.test(url)) url = `http://${/:\d+$/.test(url) ? url : `${url}:11434`}`;
  url = url.replace(/\/+$/, '');
  return url.endsWith('/v1') ? url : `${url}/v1`;
}

/** Options of {@link openaiCompatible}. */
export interface OpenAiCompatibleOptions extends OpenAiOptions {
  /** @default process.env.OPENAI_COMPATIBLE_BASE_URL */
  baseURL?: string;
  /** The server's name in error messages and `ModelError.provider`. @default 'openai-compatible' */
  name?: string;
}

/**
 * A model on any OpenAI-compatible server (vLLM, LM Studio, llama.cpp, LiteLLM, Together, ...).
 * The base URL comes from `OPENAI_COMPATIBLE_BASE_URL` unless given; the key, if the server
 * wants one, from `OPENAI_COMPATIBLE_API_KEY`.
 */
export function openaiCompatible(model: string, options: OpenAiCompatibleOptions = {}): OpenAiLlm {
  const { name, ...rest } = options;
  const baseURL = rest.baseURL ?? fromEnv('OPENAI_COMPATIBLE_BASE_URL');
  if (baseURL === undefined) {
    throw new ConfigurationError(
      `openaiCompatible('${model}') needs the server's URL: pass { baseURL: 'http://host:port/v1' } or set the OPENAI_COMPATIBLE_BASE_URL environment variable.`,
    );
  }
  const label = name ?? 'openai-compatible';
  const flavor: OpenAiFlavor = {
    provider: label,
    label: `OpenAI-compatible server '${label}'`,
    keyVariables: ['OPENAI_COMPATIBLE_API_KEY'],
    keyRequired: false,
    factory: 'openaiCompatible',
  };
  return new OpenAiLlm(model, { ...rest, baseURL }, flavor);
}
