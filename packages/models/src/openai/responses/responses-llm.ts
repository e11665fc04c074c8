import { ConfigurationError, type ContextCache, type LlmRequest, type LlmResponse } from '@troupe/core';
import type OpenAI from 'openai';
import { callCacheOf, checkModelCache, type ModelCache } from '../../shared/context-cache.js';
import { requireApiKey } from '../../shared/env.js';
import { messageOf, type FailureDetails, type ProviderIdentity } from '../../shared/errors.js';
import { checkFields, checkModelName, checkOneOf, lazily, ProviderLlm } from '../../shared/provider-llm.js';
import { isRecord } from '../../shared/tool-arguments.js';
import { openOpenAiClient, withPromptCacheKey } from '../openai-client.js';
import type { OpenAiOptions } from '../openai-llm.js';
import { toResponsesRequest, type ResponsesBuiltinTool, type ResponsesRequestSettings } from './request.js';
import { failureOf, fromResponse } from './response.js';
import { failingOnError, isTransient, ResponseFailedError, ResponsesStreamAccumulator } from './stream.js';

const FACTORY = 'openai.responses';

/** Options of {@link openaiResponses} (`openai.responses()`) and {@link OpenAiResponsesLlm}. */
export interface OpenAiResponsesOptions extends Omit<OpenAiOptions, 'maxTokensField' | 'contextCache'> {
  /**
   * Built-in tools of the Responses API, run by OpenAI and sent with every request after the
   * agent's function tools, e.g. `[{ type: 'web_search' }]` or
   * `[{ type: 'file_search', vector_store_ids: ['vs_...'] }]`. A request can add more under
   * `config.providerOptions.openai.tools`.
   * @default []
   */
  builtinTools?: ResponsesBuiltinTool[];
  /**
   * Whether the model may call several function tools in one turn (`parallel_tool_calls`, sent
   * when the agent has tools).
   * @default true
   */
  parallelToolCalls?: boolean;
  /**
   * Prompt caching with this model whatever the agent says (`false`: never): a `prompt_cache_key`
   * per session and agent. `ttl` and `minTokens` are errors here (OpenAI decides both).
   * @default the agent's or the Runner's `contextCache`
   */
  contextCache?: ContextCache;
}

const IDENTITY_LABEL = 'OpenAI Responses API';

/**
 * A model served through OpenAI's Responses API (`POST /responses`). Requests are stateless
 * (`store: false`, the session is the record); reasoning models' encrypted reasoning is kept on
 * the turn and sent back with the next request of the same model, so tool-calling turns keep
 * their chain of thought. Needs the `openai` package (an optional peer dependency).
 *
 * @example
 * const model = new OpenAiResponsesLlm('gpt-5-mini', { builtinTools: [{ type: 'web_search' }] });
 */
export class OpenAiResponsesLlm extends ProviderLlm {
  private readonly options: OpenAiResponsesOptions;
  private readonly settings: ResponsesRequestSettings;
  private readonly cache: ModelCache;
  private readonly client = lazily(() => this.createClient());

  constructor(model: string, options: OpenAiResponsesOptions = {}) {
    super(checkModelName(model, FACTORY, 'gpt-5-mini'), options.retry);
    checkOneOf(FACTORY, 'structuredOutput', options.structuredOutput, ['native', 'instruction']);
    checkFields(FACTORY, 'body', options.body, 'request fields');
    checkBuiltinTools(options.builtinTools);
    if (options.parallelToolCalls !== undefined && typeof options.parallelToolCalls !== 'boolean') {
      throw new ConfigurationError(
        `${FACTORY}() option parallelToolCalls is ${JSON.stringify(options.parallelToolCalls)}; use true or false.`,
      );
    }
    const why = 'OpenAI caches long prompts automatically and decides how long.';
    this.cache = checkModelCache(FACTORY, 'OpenAI', options.contextCache, { ttl: why, minTokens: why });
    this.options = options;
    this.settings = {
      structuredOutput: options.structuredOutput ?? 'native',
      builtinTools: options.builtinTools ?? [],
      parallelToolCalls: options.parallelToolCalls ?? true,
      body: options.body,
    };
  }

  protected get identity(): ProviderIdentity {
    return {
      provider: 'openai',
      label: IDENTITY_LABEL,
      keyHint: 'OPENAI_API_KEY or the apiKey option',
      secrets: [this.options.apiKey],
    };
  }

  private async createClient(): Promise<OpenAI> {
    const { options } = this;
    const apiKey = requireApiKey(options.apiKey, ['OPENAI_API_KEY'], 'OpenAI', FACTORY);
    return openOpenAiClient(apiKey, options, 'OpenAI');
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const client = await this.client();
    const body = toResponsesRequest(request, this.model, this.settings);
    withPromptCacheKey(body, callCacheOf(request, this.cache)?.key);
    if (!stream) {
      const response = await this.send(abortSignal, () =>
        client.responses.create({ ...body, stream: false }, { signal: abortSignal }),
      );
      if (response.status === 'failed') {
        const { message, code } = failureOf(response);
        throw this.fail({ message: code ? `${message} (${code})` : message, retryable: isTransient(code) }, 'response');
      }
      yield fromResponse(response, this.model);
      return;
    }
    const events = await this.send(abortSignal, () =>
      client.responses.create({ ...body, stream: true }, { signal: abortSignal }),
    );
    const accumulator = new ResponsesStreamAccumulator(this.model);
    yield* this.streamTurn(failingOnError(events), accumulator, abortSignal, {
      unfinished: 'the stream ended before the response finished (no response.completed)',
    });
    yield accumulator.final();
  }

  protected override failureDetails(error: unknown): FailureDetails {
    if (error instanceof ResponseFailedError) return { message: error.message, retryable: isTransient(error.code) };
    const { status, error: body } = error as { status?: unknown; error?: unknown };
    const bodyMessage = isRecord(body) && typeof body.message === 'string' ? body.message : undefined;
    return { status: typeof status === 'number' ? status : undefined, message: bodyMessage ?? messageOf(error) };
  }
}

function checkBuiltinTools(tools: unknown): void {
  if (tools === undefined) return;
  const bad = Array.isArray(tools)
    ? tools.find((tool) => !isRecord(tool) || typeof tool.type !== 'string' || tool.type === 'function')
    : tools;
  if (bad !== undefined) {
    throw new ConfigurationError(
      `${FACTORY}() option builtinTools must list Responses API built-in tools such as { type: 'web_search' }; got ${JSON.stringify(bad)}. Function tools belong on the agent (tools).`,
    );
  }
}

/**
 * An OpenAI model through the Responses API, e.g. `openaiResponses('gpt-5-mini')`, also reachable
 * as `openai.responses('gpt-5-mini')` and as the model string `openai-responses/gpt-5-mini`. The
 * key comes from `OPENAI_API_KEY` unless given.
 */
export function openaiResponses(model: string, options: OpenAiResponsesOptions = {}): OpenAiResponsesLlm {
  return new OpenAiResponsesLlm(model, options);
}
