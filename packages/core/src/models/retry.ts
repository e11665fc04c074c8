import { ConfigurationError, ModelError, TroupeError } from '../errors.js';
import { sleep } from '../utils/abort.js';
import { BaseLlm } from './base-llm.js';
import type { LlmRequest, LlmResponse } from './llm-request.js';

/** Options of {@link withRetry}. */
export interface RetryOptions {
  /**
   * How many calls to make in all, the first one included. `1` turns retries off.
   * @default 3
   */
  maxAttempts?: number;
  /**
   * The wait before the first retry; each further retry waits twice as long as the one before.
   * @default 1000
   */
  initialDelayMs?: number;
  /**
   * The longest wait between two attempts. A `Retry-After` longer than this ends the retries
   * (the provider asked for more patience than allowed) and the error is thrown.
   * @default 30000
   */
  maxDelayMs?: number;
  /**
   * Randomise each backoff wait to between half and all of it, so that many clients that failed
   * together do not retry together. A provider's `Retry-After` is never shortened.
   * @default true
   */
  jitter?: boolean;
  /**
   * Which failures to retry: a list of HTTP statuses (network errors are retried as well), or a
   * predicate of the error and the attempt that failed (1 for the first call). Statuses 400, 401,
   * 403 and 404 are never retried, whatever this says: repeating the request cannot fix them.
   * @default [408, 409, 429, 500, 502, 503, 504, 529] and any other 5xx, plus network errors
   */
  retryOn?: readonly number[] | ((error: unknown, attempt: number) => boolean);
}

const NEVER_RETRIED = new Set([400, 401, 403, 404]);
const DEFAULT_STATUSES: readonly number[] = [408, 409, 429];
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const NETWORK_NAMES = new Set([
  'APIConnectionError',
  'APIConnectionTimeoutError',
  'FetchError',
  'ConnectTimeoutError',
  'SocketError',
]);
const NETWORK_MESSAGE = /fetch failed|socket hang up|\bterminated\b|network error|connection (?:error|reset|refused)/i;

/**
 * Wraps a model so that failed calls are tried again: rate limits (429), server errors (5xx) and
 * network failures, with exponential backoff and jitter, waiting at least as long as the
 * provider's `Retry-After` says. A call is never retried once it has yielded a response (a
 * streamed chunk was already shown), nor after the abort signal fired. When the retries run out,
 * the last error is thrown (a {@link ModelError}; other errors are wrapped in one).
 *
 * @example
 * const model = withRetry(new ScriptedModel([{ error: 'busy', status: 503 }, 'Hello']), { initialDelayMs: 200 });
 */
export function withRetry(model: BaseLlm, options: RetryOptions = {}): BaseLlm {
  return new RetryingLlm(model, resolveOptions(options));
}

interface ResolvedRetryOptions {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  jitter: boolean;
  shouldRetry: (error: unknown, attempt: number) => boolean;
}

class RetryingLlm extends BaseLlm {
  constructor(
    private readonly inner: BaseLlm,
    private readonly options: ResolvedRetryOptions,
  ) {
    super(inner.model);
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse> {
    const { maxAttempts } = this.options;
    for (let attempt = 1; ; attempt++) {
      let yielded = false;
      try {
        for await (const response of this.inner.generateContentAsync(request, stream, abortSignal)) {
          yielded = true;
          yield response;
        }
        return;
      } catch (error) {
        if (yielded || abortSignal?.aborted || error instanceof ConfigurationError) throw error;
        const status = statusOf(error);
        const retryable =
          (status === undefined || !NEVER_RETRIED.has(status)) && this.options.shouldRetry(error, attempt);
        if (!retryable) throw error;
        if (attempt >= maxAttempts) throw exhausted(error, this.inner.model, attempt);
        const wait = this.delayFor(error, attempt);
        if (wait === undefined) throw error;
        await sleep(wait, abortSignal);
      }
    }
  }

  /** The wait before retry number `attempt`; undefined when the provider asks for longer than `maxDelayMs`. */
  private delayFor(error: unknown, attempt: number): number | undefined {
    const { initialDelayMs, maxDelayMs, jitter } = this.options;
    const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1));
    const jittered = jitter ? backoff * (0.5 + Math.random() * 0.5) : backoff;
    const retryAfter = retryAfterMs(error);
    if (retryAfter === undefined) return jittered;
    return retryAfter > maxDelayMs ? undefined : retryAfter;
  }
}

function resolveOptions(options: RetryOptions): ResolvedRetryOptions {
  const maxAttempts = options.maxAttempts ?? 3;
  const initialDelayMs = options.initialDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigurationError(
      `withRetry option maxAttempts is ${String(maxAttempts)}; use a whole number of at least 1 (1 turns retries off).`,
    );
  }
  for (const [name, value] of [
    ['initialDelayMs', initialDelayMs],
    ['maxDelayMs', maxDelayMs],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigurationError(
        `withRetry option ${name} is ${String(value)}; use a number of milliseconds, 0 or more.`,
      );
    }
  }
  if (maxDelayMs < initialDelayMs) {
    throw new ConfigurationError(
      `withRetry option maxDelayMs (${maxDelayMs}) is less than initialDelayMs (${initialDelayMs}); raise maxDelayMs or lower initialDelayMs.`,
    );
  }
  const { retryOn } = options;
  let shouldRetry: (error: unknown, attempt: number) => boolean;
  if (typeof retryOn === 'function') {
    shouldRetry = retryOn;
  } else if (retryOn === undefined) {
    shouldRetry = (error) => isDefaultRetryable(error, DEFAULT_STATUSES);
  } else if (Array.isArray(retryOn) && retryOn.every((s) => Number.isInteger(s))) {
    const refused = retryOn.filter((s) => NEVER_RETRIED.has(s));
    if (refused.length > 0) {
      throw new ConfigurationError(
        `withRetry option retryOn lists ${refused.join(', ')}; statuses 400, 401, 403 and 404 are never retried because repeating the request cannot fix them. Remove them.`,
      );
    }
    const statuses = [...retryOn];
    shouldRetry = (error) => isDefaultRetryable(error, statuses, false);
  } else {
    throw new ConfigurationError(
      `withRetry option retryOn is ${JSON.stringify(retryOn)}; use a list of HTTP statuses such as [429, 503] or a function (error, attempt) => boolean.`,
    );
  }
  return { maxAttempts, initialDelayMs, maxDelayMs, jitter: options.jitter ?? true, shouldRetry };
}

function isDefaultRetryable(error: unknown, statuses: readonly number[], anyServerError = true): boolean {
  const status = statusOf(error);
  if (status !== undefined) return statuses.includes(status) || (anyServerError && status >= 500 && status <= 599);
  return isNetworkError(error);
}

/** The HTTP status an error carries, on itself or (for wrapped SDK errors) on its cause. */
function statusOf(error: unknown): number | undefined {
  for (const e of causeChain(error)) {
    const status = e.status ?? e.statusCode;
    if (typeof status === 'number') return status;
  }
  return undefined;
}

function isNetworkError(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e.name === 'AbortError' || e.name === 'APIUserAbortError') return false;
    if (typeof e.retryable === 'boolean') return e.retryable;
    if (typeof e.isRetryable === 'boolean') return e.isRetryable;
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
    if (typeof e.name === 'string' && NETWORK_NAMES.has(e.name)) return true;
    if (typeof e.message === 'string' && NETWORK_MESSAGE.test(e.message)) return true;
  }
  return false;
}

interface ErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  statusCode?: unknown;
  retryable?: unknown;
  isRetryable?: unknown;
  retryAfterMs?: unknown;
  headers?: unknown;
  responseHeaders?: unknown;
  cause?: unknown;
}

/** The error and its causes, at most a few levels deep. */
function causeChain(error: unknown): ErrorFields[] {
  const chain: ErrorFields[] = [];
  let current: unknown = error;
  while (typeof current === 'object' && current !== null && chain.length < 5 && !chain.includes(current)) {
    chain.push(current);
    current = (current as ErrorFields).cause;
  }
  return chain;
}

/**
 * How long the provider asked us to wait: an error's own `retryAfterMs`, or the `retry-after-ms` /
 * `Retry-After` (seconds or an HTTP date) header of the error or its cause.
 */
function retryAfterMs(error: unknown): number | undefined {
  for (const e of causeChain(error)) {
    if (typeof e.retryAfterMs === 'number' && Number.isFinite(e.retryAfterMs) && e.retryAfterMs >= 0)
      return e.retryAfterMs;
    for (const headers of [e.headers, e.responseHeaders]) {
      const ms = header(headers, 'retry-after-ms');
      if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
      const after = header(headers, 'retry-after');
      if (after === undefined) continue;
      const seconds = Number(after);
      if (after.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
      const date = Date.parse(after);
      if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
    }
  }
  return undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}

function exhausted(error: unknown, model: string, attempts: number): unknown {
  if (error instanceof TroupeError) return error;
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`Model '${model}' failed ${attempts} times; the last error: ${message}`, {
    ...(status === undefined ? {} : { status }),
    cause: error,
  });
}
