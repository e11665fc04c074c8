import { BaseLlm, ConfigurationError, withRetry, type LlmRequest, type LlmResponse, type RetryOptions } from '@troupe/core';

/**
 * The retry policy every adapter applies unless told otherwise: 3 attempts in all, waits of about
 * 1 s then 2 s (with jitter), or as long as the provider's `Retry-After` says up to 30 s; 408, 409,
 * 429, 5xx and network errors are retried, other statuses never.
 */
export const DEFAULT_RETRY: Readonly<RetryOptions> = Object.freeze({ maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 30_000, jitter: true });

/** Options every adapter takes. */
export interface ProviderLlmOptions {
  /**
   * Retries of failed calls (see `withRetry`): options merged over the default policy, or `false`
   * to turn retries off (e.g. when a RoutedLlm falls back to another model instead).
   * @default { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 30000, jitter: true }
   */
  retry?: RetryOptions | false;
}

/** Throws the error every factory gives for a missing or empty model name. */
export function checkModelName(model: unknown, factory: string, example: string): string {
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ConfigurationError(`${factory}() needs a model name such as '${example}'; got ${JSON.stringify(model)}.`);
  }
  return model;
}

/** A provider adapter: implements one attempt of a call; retries are applied around it. */
export abstract class ProviderLlm extends BaseLlm {
  private readonly attempts: BaseLlm;

  constructor(model: string, retry: RetryOptions | false | undefined) {
    super(model);
    const once: BaseLlm = { model, generateContentAsync: (request, stream, abortSignal) => this.generateOnce(request, stream ?? false, abortSignal) };
    this.attempts = retry === false ? once : withRetry(once, { ...DEFAULT_RETRY, ...retry });
  }

  generateContentAsync(request: LlmRequest, stream = false, abortSignal?: AbortSignal): AsyncGenerator<LlmResponse> {
    return this.attempts.generateContentAsync(request, stream, abortSignal);
  }

  /** One call to the provider: partial chunks when streaming, then the complete response. */
  protected abstract generateOnce(request: LlmRequest, stream: boolean, abortSignal: AbortSignal | undefined): AsyncGenerator<LlmResponse>;
}
