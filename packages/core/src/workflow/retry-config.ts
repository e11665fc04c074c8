import { ConfigurationError } from '../errors.js';

/** An error class a retry filter may name. */
export type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * How a workflow node retries a failed try (ADK's repository names, milliseconds). Every try is
 * an event; the node runs at most `maxAttempts` times in all.
 */
export interface RetryConfig {
  /** Tries in all, the first included. @default 5 */
  maxAttempts?: number;
  /** Wait before the second try, in ms. @default 1000 */
  initialDelayMs?: number;
  /** The longest wait between tries, in ms. @default 60000 */
  maxDelayMs?: number;
  /** Each wait is the previous one times this. @default 2 */
  backoffFactor?: number;
  /** Randomness (ADK's): each wait moves by a random amount within ± jitter × the wait, never below 0 (1: anywhere from 0 to twice it). @default 1 */
  jitter?: number;
  /** Retry only these errors (class, or the error's `name` or `code`); unset retries every error. */
  errors?: readonly (string | ErrorClass)[];
  /** ADK JS 2.0's name for {@link errors}. */
  exceptions?: readonly (string | ErrorClass)[] | null;
  /** ADK JS 2.0's name: seconds. Prefer {@link initialDelayMs}. */
  initialDelay?: number;
  /** ADK JS 2.0's name: seconds. Prefer {@link maxDelayMs}. */
  maxDelay?: number;
}

/** A retry config with its defaults filled in and checked. Internal. */
export interface ResolvedRetry {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  backoffFactor: number;
  jitter: number;
  errors: readonly (string | ErrorClass)[] | undefined;
}

/** Checks a node's retry config at construction; errors name the node, the field and the value. */
export function resolveRetry(node: string, config: RetryConfig | undefined): ResolvedRetry | undefined {
  if (config === undefined) return undefined;
  if (typeof config !== 'object' || config === null)
    throw new ConfigurationError(
      `Workflow node '${node}' has retryConfig ${JSON.stringify(config)}; pass an object such as { maxAttempts: 3 }.`,
    );
  const number = (field: string, value: unknown, fallback: number, min: number, integer = false): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value)))
      throw new ConfigurationError(
        `Workflow node '${node}' has retryConfig.${field} ${JSON.stringify(value)}; use ${integer ? 'a whole number' : 'a number'} of at least ${min}.`,
      );
    return value;
  };
  const seconds = (value: number | undefined): number | undefined => (value === undefined ? undefined : value * 1000);
  const errors = config.errors ?? config.exceptions ?? undefined;
  if (
    errors !== undefined &&
    (!Array.isArray(errors) || errors.some((e) => typeof e !== 'string' && typeof e !== 'function'))
  )
    throw new ConfigurationError(
      `Workflow node '${node}' has retryConfig.errors that is not a list of error classes or names; pass e.g. [TypeError, 'RateLimitError'].`,
    );
  return {
    maxAttempts: number('maxAttempts', config.maxAttempts, 5, 1, true),
    initialDelayMs: number('initialDelayMs', config.initialDelayMs ?? seconds(config.initialDelay), 1000, 0),
    maxDelayMs: number('maxDelayMs', config.maxDelayMs ?? seconds(config.maxDelay), 60_000, 0),
    backoffFactor: number('backoffFactor', config.backoffFactor, 2, 1),
    jitter: number('jitter', config.jitter, 1, 0),
    errors,
  };
}

/** True when `error` may be retried under `retry`. */
export function isRetryable(retry: ResolvedRetry, error: unknown): boolean {
  if (retry.errors === undefined) return true;
  return retry.errors.some((match) => {
    if (typeof match === 'function') return error instanceof (match as unknown as new () => Error);
    if (typeof error !== 'object' || error === null) return false;
    const e = error as { name?: unknown; code?: unknown; constructor?: { name?: unknown } };
    return e.name === match || e.code === match || e.constructor?.name === match;
  });
}

/**
 * How long to wait before try `attempt + 1` (attempt is the 1-based try that just failed), as ADK
 * waits: the backed-off delay capped at maxDelayMs, then a uniform offset within ± jitter × it.
 */
export function retryDelay(retry: ResolvedRetry, attempt: number, random: () => number = Math.random): number {
  const delay = Math.min(retry.maxDelayMs, retry.initialDelayMs * retry.backoffFactor ** (attempt - 1));
  const span = retry.jitter * delay;
  return Math.max(0, delay - span + random() * 2 * span);
}
