import { TroupeError } from '@troupe/core';

/** HTTP statuses the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: {
    /** Stable, machine-readable: `INVALID_REQUEST`, `SESSION_NOT_FOUND`, `SESSION_BUSY`, ... */
    code: string;
    message: string;
    /** The request field at fault, for `INVALID_REQUEST`. */
    field?: string;
  };
}

/** An error the API reports with an HTTP status (bad request, unknown app, busy session, ...). */
export class HttpError extends TroupeError {
  constructor(
    readonly status: ErrorStatus,
    code: string,
    message: string,
    readonly field?: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field === undefined ? {} : { field: this.field }) } };
  }
}

// Core's errors that reach a request, by code (not all are exported as classes). A store that is
// down (STORAGE) is 503, not 500: the request was fine and may succeed once the store is back.
const STATUS_BY_CODE: Readonly<Record<string, ErrorStatus>> = {
  SESSION_NOT_FOUND: 404,
  SESSION_BUSY: 409,
  PENDING_INTERRUPT: 409,
  STALE_SESSION: 409,
  INVOCATION_EXISTS: 409,
  LEASE_LOST: 409,
  INTERRUPT_RESPONSE: 400,
  CONFIGURATION: 400,
  INPUT_VALIDATION: 400,
  INVALID_STATE_KEY: 400,
  STORAGE: 503,
};

/**
 * Codes of run failures caused by the store rather than by the agents: the session could not
 * record the run (STORAGE), or another process took it over (LEASE_LOST). `/run` answers them with
 * their HTTP status instead of a 200, since the run's error event could not be stored.
 */
const STORE_FAILURES: ReadonlySet<string> = new Set(['STORAGE', 'LEASE_LOST']);

/** True for an error that means the store, not the agents, stopped the run (see {@link toHttpError}). */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof TroupeError && STORE_FAILURES.has(error.code);
}

/**
 * Turns anything thrown while handling a request into an {@link HttpError}: core's errors keep
 * their code with the matching status; anything else is a 500 that keeps the original as `cause`.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof TroupeError) {
    const status = STATUS_BY_CODE[error.code] ?? 500;
    return new HttpError(status, error.code, error.message, undefined, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new HttpError(500, 'INTERNAL', `The server failed to handle the request: ${message}`, undefined, { cause: error });
}
