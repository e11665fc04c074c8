import { ConfigurationError, type LlmRequest, type LlmResponse } from '@troupe/core';
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV3,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { messageOf, type FailureDetails, type ProviderIdentity } from '../shared/errors.js';
import { ProviderLlm, type ProviderLlmOptions } from '../shared/provider-llm.js';
import { isRecord } from '../shared/tool-arguments.js';
import { toCallOptions } from './prompt.js';
import { AiSdkStreamAccumulator, fromGenerateResult, type AnyGenerateResult, type AnyStreamPart } from './response.js';

/** A Vercel AI SDK language model: `openai('gpt-4o')` from `@ai-sdk/openai`, `anthropic(...)` from `@ai-sdk/anthropic`, ... */
export type AiSdkLanguageModel = LanguageModelV2 | LanguageModelV3;

/** Options of {@link aiSdk} and {@link AiSdkLlm}. */
export interface AiSdkOptions extends ProviderLlmOptions {
  /** AI SDK provider options for every call, e.g. `{ openai: { reasoningEffort: 'low' } }`; `config.providerOptions` wins over them. */
  providerOptions?: SharedV3ProviderOptions;
  /** The model name on events. @default the language model's `modelId` */
  name?: string;
}

/**
 * Any Vercel AI SDK language model (interface v2 or v3, as in `ai` 5 and 6) as a Troupe model,
 * called through its `doGenerate` / `doStream`. The AI SDK provider package does the HTTP; this
 * adapter maps the conversation, tools, structured output, streaming, usage and errors.
 *
 * @example
 * import { createOpenAI } from '@ai-sdk/openai';
 * const model = aiSdk(createOpenAI({ apiKey: process.env.OPENAI_API_KEY }).chat('gpt-4o-mini'));
 */
export class AiSdkLlm extends ProviderLlm {
  readonly languageModel: AiSdkLanguageModel;
  private readonly options: AiSdkOptions;
  protected readonly identity: ProviderIdentity;

  constructor(languageModel: AiSdkLanguageModel, options: AiSdkOptions = {}) {
    if (!isRecord(languageModel) || typeof (languageModel as { doGenerate?: unknown }).doGenerate !== 'function') {
      throw new ConfigurationError(
        `aiSdk() needs an AI SDK language model such as openai('gpt-4o-mini') from '@ai-sdk/openai'; got ${describe(languageModel)}.`,
      );
    }
    const version = (languageModel as { specificationVersion?: unknown }).specificationVersion;
    if (version !== 'v2' && version !== 'v3') {
      throw new ConfigurationError(
        `aiSdk() supports AI SDK language models of specification v2 and v3 (ai 5 and 6); this one is ${JSON.stringify(version)}. Update the provider package (@ai-sdk/...) to a version for ai 5 or later.`,
      );
    }
    super(options.name ?? languageModel.modelId, options.retry);
    this.languageModel = languageModel;
    this.options = options;
    this.identity = {
      provider: languageModel.provider,
      label: `AI SDK provider '${languageModel.provider}'`,
      keyHint: "the provider's API key",
    };
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const options = {
      ...toCallOptions(request, this.options.providerOptions),
      ...(abortSignal ? { abortSignal } : {}),
    };
    const model = this.languageModel;
    if (!stream) {
      // The v2 call options read the same fields this adapter fills.
      const result = await this.send<AnyGenerateResult>(abortSignal, async () =>
        model.specificationVersion === 'v3'
          ? await model.doGenerate(options)
          : await model.doGenerate(options as LanguageModelV2CallOptions),
      );
      yield fromGenerateResult(result);
      return;
    }
    const parts = await this.send<ReadableStream<AnyStreamPart>>(abortSignal, async () =>
      model.specificationVersion === 'v3'
        ? (await model.doStream(options)).stream
        : (await model.doStream(options as LanguageModelV2CallOptions)).stream,
    );
    const accumulator = new AiSdkStreamAccumulator();
    const reader = parts.getReader();
    let done = false;
    let received = false;
    try {
      while (!done) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          throw this.failure(error, abortSignal, 'stream');
        }
        if (next.done) {
          done = true;
          break;
        }
        const { responses, error } = accumulator.add(next.value);
        if (error !== undefined) throw this.failure(error, abortSignal, received ? 'stream' : 'request');
        for (const response of responses) {
          received = true;
          yield response;
        }
      }
    } finally {
      // Stopped early (an error, or the consumer left): release the HTTP stream. A failure to
      // cancel a stream nobody reads any more has nobody to be reported to.
      if (!done) reader.cancel().catch(() => undefined);
    }
    if (!accumulator.finished)
      throw this.fail({ message: "the stream ended without a 'finish' part", retryable: true }, 'stream');
    yield accumulator.final();
  }

  protected override failureDetails(error: unknown): FailureDetails {
    // APICallError from @ai-sdk/provider: statusCode, responseBody, isRetryable, responseHeaders.
    const { statusCode, responseBody, isRetryable } = (isRecord(error) ? error : {}) as {
      statusCode?: unknown;
      responseBody?: unknown;
      isRetryable?: unknown;
    };
    return {
      status: typeof statusCode === 'number' ? statusCode : undefined,
      message: bodyMessage(responseBody) ?? messageOf(error),
      retryable: typeof isRetryable === 'boolean' ? isRetryable : undefined,
    };
  }
}

/** The message inside a provider's JSON error body (`{ error: { message } }` or `{ message }`). */
function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string')
      return parsed.error.message;
    if (isRecord(parsed) && typeof parsed.message === 'string') return parsed.message;
  } catch {
    return body.trim() || undefined;
  }
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string '${value}' (use the provider's function, e.g. openai('${value}'))`;
  return value === null ? 'null' : typeof value;
}

/** Wraps a Vercel AI SDK language model, e.g. `aiSdk(openai('gpt-4o-mini'))` with `openai` from `@ai-sdk/openai`. */
export function aiSdk(languageModel: AiSdkLanguageModel, options: AiSdkOptions = {}): AiSdkLlm {
  return new AiSdkLlm(languageModel, options);
}
