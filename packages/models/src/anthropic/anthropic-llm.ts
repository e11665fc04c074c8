import { ConfigurationError, type ContextCache, type LlmRequest, type LlmResponse } from '@troupe/core';
import type Anthropic from '@anthropic-ai/sdk';
import { callCacheOf, checkModelCache, type ModelCache } from '../shared/context-cache.js';
import { requireApiKey } from '../shared/env.js';
import { messageOf, type FailureDetails, type ProviderIdentity } from '../shared/errors.js';
import {
  checkFields,
  checkModelName,
  checkOneOf,
  lazily,
  ProviderLlm,
  type ProviderLlmOptions,
} from '../shared/provider-llm.js';
import { loadSdk, sdkClientOptions } from '../shared/sdk.js';
import { isRecord } from '../shared/tool-arguments.js';
import { withCacheBreakpoints } from './cache-breakpoints.js';
import { toMessagesRequest } from './request.js';
import { fromMessage, MessageStreamAccumulator } from './response.js';

/** Options of {@link anthropic} and {@link AnthropicLlm}. */
export interface AnthropicOptions extends ProviderLlmOptions {
  /** @default process.env.ANTHROPIC_API_KEY */
  apiKey?: string;
  /** Another endpoint (a proxy, a test server). @default 'https://api.anthropic.com' */
  baseURL?: string;
  /** Headers sent with every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string>;
  /** Time limit of one HTTP request. @default 600000 (the SDK's) */
  timeoutMs?: number;
  /**
   * `max_tokens` when the request sets no `maxOutputTokens` (the Messages API requires one).
   * @default 4096
   */
  maxTokens?: number;
  /**
   * `'native'` sends `config.responseSchema` as `output_config.format` (JSON schema, structured
   * outputs); `'instruction'` writes it into the system prompt, for models without structured outputs.
   * @default 'native'
   */
  structuredOutput?: 'native' | 'instruction';
  /** Fields added to every request body, e.g. `{ thinking: { type: 'enabled', budget_tokens: 2048 } }`; `config.providerOptions.anthropic` wins over them. */
  body?: Record<string, unknown>;
  /**
   * Prompt caching with this model whatever the agent says (`false`: never); see
   * "Prompt caching" in docs/models.md. `minTokens` is Gemini's and an error here.
   * @default the agent's or the Runner's `contextCache`
   */
  contextCache?: ContextCache;
}

const IDENTITY: ProviderIdentity = {
  provider: 'anthropic',
  label: 'Anthropic',
  keyHint: 'ANTHROPIC_API_KEY or the apiKey option',
};

/**
 * A Claude model through the Anthropic Messages API. Needs the `@anthropic-ai/sdk` package (an
 * optional peer dependency, loaded on first use).
 *
 * @example
 * const model = new AnthropicLlm('claude-sonnet-4-5', { apiKey: process.env.ANTHROPIC_API_KEY });
 */
export class AnthropicLlm extends ProviderLlm {
  private readonly options: AnthropicOptions;
  private readonly cache: ModelCache;
  private readonly client = lazily(() => this.createClient());

  protected get identity(): ProviderIdentity {
    return { ...IDENTITY, secrets: [this.options.apiKey] };
  }

  constructor(model: string, options: AnthropicOptions = {}) {
    super(checkModelName(model, 'anthropic', 'claude-sonnet-4-5'), options.retry);
    if (options.maxTokens !== undefined && (!Number.isInteger(options.maxTokens) || options.maxTokens < 1)) {
      throw new ConfigurationError(
        `anthropic() option maxTokens is ${String(options.maxTokens)}; use a whole number of tokens, at least 1.`,
      );
    }
    checkOneOf('anthropic', 'structuredOutput', options.structuredOutput, ['native', 'instruction']);
    checkFields('anthropic', 'body', options.body, 'request fields');
    this.cache = checkModelCache('anthropic', 'Anthropic', options.contextCache, {
      minTokens: "Anthropic caches every marked prefix above the model's own minimum (1,024 to 4,096 tokens).",
    });
    this.options = options;
  }

  private async createClient(): Promise<Anthropic> {
    const { options } = this;
    const apiKey = requireApiKey(options.apiKey, ['ANTHROPIC_API_KEY'], 'Anthropic', 'anthropic');
    const { default: AnthropicClient } = await loadSdk(
      '@anthropic-ai/sdk',
      'Anthropic',
      () => import('@anthropic-ai/sdk'),
    );
    return new AnthropicClient(sdkClientOptions(apiKey, options));
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const client = await this.client();
    const plain = toMessagesRequest(request, this.model, {
      maxTokens: this.options.maxTokens ?? 4096,
      structuredOutput: this.options.structuredOutput ?? 'native',
      body: this.options.body,
    });
    const cache = callCacheOf(request, this.cache);
    const body = cache ? withCacheBreakpoints(plain, cache) : plain;
    if (!stream) {
      yield fromMessage(
        await this.send(abortSignal, () => client.messages.create({ ...body, stream: false }, { signal: abortSignal })),
      );
      return;
    }
    const events = await this.send(abortSignal, () =>
      client.messages.create({ ...body, stream: true }, { signal: abortSignal }),
    );
    const accumulator = new MessageStreamAccumulator();
    yield* this.streamTurn(events, accumulator, abortSignal, { unfinished: 'the stream ended before message_stop' });
    yield accumulator.final();
  }

  protected override failureDetails(error: unknown): FailureDetails {
    const { status, error: body } = error as { status?: unknown; error?: unknown };
    // The body is { type: 'error', error: { type, message } }; a stream's error event has the same shape.
    const inner = isRecord(body) && isRecord(body.error) ? body.error : undefined;
    const message = typeof inner?.message === 'string' ? inner.message : messageOf(error);
    const overloaded = inner?.type === 'overloaded_error' || inner?.type === 'api_error' ? true : undefined;
    return { status: typeof status === 'number' ? status : undefined, message, retryable: overloaded };
  }
}

/** A Claude model, e.g. `anthropic('claude-sonnet-4-5')`. The key comes from `ANTHROPIC_API_KEY` unless given. */
export function anthropic(model: string, options: AnthropicOptions = {}): AnthropicLlm {
  return new AnthropicLlm(model, options);
}
