import {
  BaseLlm,
  ConfigurationError,
  withRetry,
  type LlmRequest,
  type LlmResponse,
  type RetryOptions,
} from '@troupe/core';
import {
  messageOf,
  providerError,
  throwIfAborted,
  type FailureDetails,
  type ProviderError,
  type ProviderIdentity,
} from './errors.js';
import { isRecord } from './tool-arguments.js';

/**
 * The retry policy every adapter applies unless told otherwise: 3 attempts in all, waits of about
 * 1 s then 2 s (with jitter), or as long as the provider's `Retry-After` says up to 30 s; 408, 409,
 * 429, 5xx and network errors are retried, other statuses never.
 */
export const DEFAULT_RETRY: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  jitter: true,
});

/** Options every adapter takes. */
export interface ProviderLlmOptions {
  /**
   * Retries of failed calls (see `withRetry`): options merged over the default policy, or `false`
   * to turn retries off (e.g. when a RoutedLlm falls back to another model instead).
   * @default { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 30000, jitter: true }
   */
  retry?: RetryOptions | false;
}

/** Where a call failed: sending it, reading its stream, or reading a response that came back unusable. */
export type FailurePhase = 'request' | 'stream' | 'response';

/**
 * Folds one streamed turn chunk by chunk: the partial responses each chunk adds, then the whole
 * turn once (a `ResponseBuilder` behind it usually does the folding).
 */
export interface StreamAccumulator<Chunk> {
  /** Whether the provider said the turn is over; a stream that ends before was cut off. */
  readonly finished: boolean;
  /** The partial responses (text and thought deltas) this chunk adds. */
  add(chunk: Chunk): Iterable<LlmResponse>;
  /** The complete response: every delta once, the calls, usage and finish reason. */
  final(): LlmResponse;
}

/** How {@link ProviderLlm.streamTurn} reads a stream. */
export interface StreamTurnOptions {
  /** What the provider failed to send when the stream ends early, e.g. `'the stream ended before message_stop'`. */
  unfinished: string;
  /**
   * Whether an error before the first chunk is a failed request (SDKs that send the request on
   * the first read) rather than a broken stream.
   * @default false
   */
  requestUntilFirstChunk?: boolean;
  /** Reads the failure's details for this call instead of {@link ProviderLlm.failureDetails}. */
  details?: (error: unknown) => FailureDetails;
}

/** Throws the error every factory gives for a missing or empty model name. */
export function checkModelName(model: unknown, factory: string, example: string): string {
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ConfigurationError(`${factory}() needs a model name such as '${example}'; got ${JSON.stringify(model)}.`);
  }
  return model;
}

/** Throws when an option is set to none of its allowed values, naming the option, the value and the choices. */
export function checkOneOf(factory: string, option: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined || allowed.includes(value as string)) return;
  const quoted = allowed.map((choice) => `'${choice}'`);
  const choices =
    quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1] ?? ''}` : (quoted[0] ?? '');
  throw new ConfigurationError(`${factory}() option ${option} is ${JSON.stringify(value)}; use ${choices}.`);
}

/** Throws when an option that must be a plain object of fields (e.g. extra request-body fields) is something else. */
export function checkFields(factory: string, option: string, value: unknown, what: string): void {
  if (value !== undefined && !isRecord(value)) {
    throw new ConfigurationError(
      `${factory}() option ${option} must be an object of ${what}; got ${JSON.stringify(value)}.`,
    );
  }
}

/**
 * A value made on first use and kept, e.g. an SDK client; made again on the next use when making
 * it failed (a missing key or SDK), so a fixed environment takes effect without a new model.
 */
export function lazily<T>(create: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= create().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}

/**
 * The base of a provider adapter: it implements one attempt of a call ({@link generateOnce}) as a
 * mapping between Troupe's request and response and the provider's wire format; this base adds
 * retries around it, turns failures into {@link ProviderError}s with secrets masked, honours the
 * abort signal, and reads streams into partial responses and one final response.
 *
 * @example
 * class EchoLlm extends ProviderLlm {
 *   protected readonly identity = { provider: 'echo', label: 'Echo' };
 *   protected async *generateOnce(request: LlmRequest, stream: boolean, abortSignal?: AbortSignal) {
 *     const reply = await this.send(abortSignal, () => postToEcho(request, abortSignal));
 *     yield toLlmResponse(reply);
 *   }
 * }
 */
export abstract class ProviderLlm extends BaseLlm {
  private readonly attempts: BaseLlm;

  constructor(model: string, retry: RetryOptions | false | undefined) {
    super(model);
    const once: BaseLlm = {
      model,
      generateContentAsync: (request, stream, abortSignal) => this.generateOnce(request, stream ?? false, abortSignal),
    };
    this.attempts = retry === false ? once : withRetry(once, { ...DEFAULT_RETRY, ...retry });
  }

  /** Who the provider is in error messages and `ModelError.provider`, and which secrets to mask there. */
  protected abstract readonly identity: ProviderIdentity;

  generateContentAsync(request: LlmRequest, stream = false, abortSignal?: AbortSignal): AsyncGenerator<LlmResponse> {
    return this.attempts.generateContentAsync(request, stream, abortSignal);
  }

  /** One call to the provider: partial chunks when streaming, then the complete response. */
  protected abstract generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse>;

  /**
   * What a failed call says in provider-neutral terms. The default reads a numeric `status` and
   * the error's message; override it to read the provider's error body, `Retry-After` or
   * whether a retry can help.
   */
  protected failureDetails(error: unknown): FailureDetails {
    const status = isRecord(error) ? error.status : undefined;
    return { status: typeof status === 'number' ? status : undefined, message: messageOf(error) };
  }

  /**
   * The error to throw for a failed call: the abort signal's reason when the call was cancelled,
   * a `ConfigurationError` as it is, else a {@link ProviderError} naming the provider, the model,
   * the status and the provider's message.
   */
  protected failure(
    error: unknown,
    abortSignal: AbortSignal | undefined,
    phase: FailurePhase,
    details?: (error: unknown) => FailureDetails,
  ): unknown {
    throwIfAborted(abortSignal);
    if (error instanceof ConfigurationError) return error;
    return providerError(
      this.identity,
      this.model,
      (details ?? ((e: unknown) => this.failureDetails(e)))(error),
      error,
      phase,
    );
  }

  /** A failure the adapter found itself (a cut-off stream, an unusable response), not one it caught. */
  protected fail(details: FailureDetails, phase: FailurePhase): ProviderError {
    return providerError(this.identity, this.model, details, undefined, phase);
  }

  /** Sends a request (or anything else that can fail as one), throwing {@link failure}'s error if it fails. */
  protected async send<T>(
    abortSignal: AbortSignal | undefined,
    call: () => PromiseLike<T>,
    details?: (error: unknown) => FailureDetails,
  ): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.failure(error, abortSignal, 'request', details);
    }
  }

  /**
   * Reads a streamed turn through the accumulator, yielding each partial response as it comes.
   * A read that fails throws {@link failure}'s error; a stream that ends before the accumulator
   * is `finished` throws a retryable stream failure. Yield `accumulator.final()` after it.
   */
  protected async *streamTurn<Chunk>(
    chunks: AsyncIterable<Chunk>,
    accumulator: StreamAccumulator<Chunk>,
    abortSignal: AbortSignal | undefined,
    options: StreamTurnOptions,
  ): AsyncGenerator<LlmResponse, void> {
    const iterator = chunks[Symbol.asyncIterator]();
    let received = false;
    for (;;) {
      let next: IteratorResult<Chunk>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw this.failure(
          error,
          abortSignal,
          received || !options.requestUntilFirstChunk ? 'stream' : 'request',
          options.details,
        );
      }
      if (next.done) break;
      received = true;
      yield* accumulator.add(next.value);
    }
    if (!accumulator.finished) throw this.fail({ message: options.unfinished, retryable: true }, 'stream');
  }
}
