import {
  GuardrailError,
  GuardrailTrippedError,
  InvalidStateKeyError,
  RunCancelledError,
  RunLimitError,
} from '../errors.js';

/**
 * Errors that end the whole run: cancellation, a run limit, an invalid state key, or anything once
 * the run's signal is aborted. They are never retried by a router nor turned into a tool response.
 */
export function endsRun(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true ||
    error instanceof RunLimitError ||
    error instanceof RunCancelledError ||
    error instanceof InvalidStateKeyError ||
    error instanceof GuardrailTrippedError ||
    error instanceof GuardrailError
  );
}
