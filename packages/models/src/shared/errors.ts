import { createRedactor, ModelError } from '@troupe/core';

/**
 * A failed provider call. Besides `status` and `provider` (from {@link ModelError}) it may carry
 * the wait the provider asked for and whether a retry can help; `withRetry` reads both.
 */
export class ProviderError extends ModelError {
  /** How long the provider asked to wait before trying again (`Retry-After`, Gemini's RetryInfo). */
  readonly retryAfterMs: number | undefined;
  /** Set when the failure is known to be transient (or known not to be) without an HTTP status. */
  readonly retryable: boolean | undefined;

  constructor(
    message: string,
    options: { status?: number; provider: string; cause?: unknown; retryAfterMs?: number; retryable?: boolean },
  ) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
    this.retryable = options.retryable;
  }
}

/** What an adapter knows about a failure, in provider-neutral terms. */
export interface FailureDetails {
  status?: number | undefined;
  /** The provider's own explanation (the error body's message), or the transport error's. */
  message: string;
  retryAfterMs?: number | undefined;
  retryable?: boolean | undefined;
}

/** Says who the provider is in error messages and what to do about common statuses. */
export interface ProviderIdentity {
  /** As in `ModelError.provider`: `openai`, `gemini`, `anthropic`, `ollama`, ... */
  provider: string;
  /** As shown to people: `OpenAI`, `Gemini`, ... */
  label: string;
  /** Where the key comes from, for the 401/403 hint (e.g. `OPENAI_API_KEY or the apiKey option`). */
  keyHint?: string | undefined;
  /**
   * Strings masked in error messages besides core's default rules (URL passwords, Bearer values,
   * key-shaped values, secret-named environment variables): the `apiKey` option, for servers that
   * echo a rejected key.
   */
  secrets?: readonly (string | undefined)[] | undefined;
}

/**
 * Builds the ModelError for a failure: it names the provider, the model, the HTTP status and the
 * provider's message, with secrets masked (the message ends up in the session's error event).
 */
export function providerError(
  who: ProviderIdentity,
  model: string,
  details: FailureDetails,
  cause: unknown,
  phase: 'request' | 'stream' | 'response' = 'request',
): ProviderError {
  const { status } = details;
  const what = `${who.label} ${phase} for model '${model}'`;
  const how =
    status !== undefined
      ? `failed with HTTP ${status}`
      : phase === 'stream'
        ? 'broke off'
        : phase === 'response'
          ? 'was unusable'
          : 'failed without an HTTP response';
  const message = maskSecrets(
    `${what} ${how}: ${details.message.trim() || 'no message'}${hintFor(who, status)}`,
    who.secrets,
  );
  return new ProviderError(message, {
    provider: who.provider,
    cause,
    ...(status === undefined ? {} : { status }),
    ...(details.retryAfterMs === undefined ? {} : { retryAfterMs: details.retryAfterMs }),
    ...(details.retryable === undefined ? {} : { retryable: details.retryable }),
  });
}

function maskSecrets(text: string, secrets: ProviderIdentity['secrets']): string {
  // Too short to be a real key (e.g. a placeholder for a local server): masking it would garble the message.
  const usable = (secrets ?? []).filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
  return createRedactor({ secrets: usable })(text);
}

function hintFor(who: ProviderIdentity, status: number | undefined): string {
  if (status === 401 || status === 403) return who.keyHint ? ` Check the API key (${who.keyHint}).` : '';
  if (status === 404) return ' Check the model name.';
  if (status === 429) return ' The rate limit or quota was reached.';
  return '';
}

/** If the call was cancelled, its signal's reason is the error to throw, not a provider error. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** The error's message, for errors that are not Errors too. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause =
      error.cause instanceof Error && error.cause.message && !error.message.includes(error.cause.message)
        ? ` (${error.cause.message})`
        : '';
    return error.message + cause;
  }
  return typeof error === 'string' ? error : JSON.stringify(error);
}
