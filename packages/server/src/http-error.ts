import { TroupeError, type ErrorCode } from '@troupe/core';
import { httpMessage } from './http-remedy.js';

/** HTTP statuses the API answers errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: {
    /** Stable, machine-readable: `INVALID_REQUEST`, `SESSION_NOT_FOUND`, `SESSION_BUSY`, ... */
    code: string;
    message: string;
    /** The request field at fault (`INVALID_REQUEST`, `LIMIT_EXCEEDED`, `RESERVED_KEY`, ...). */
    field?: string;
    /** On every 5xx: the request's id, as in the `X-Request-Id` header and the server's log (`onError`). */
    requestId?: string;
    /** `RUN_OUTCOME_UNKNOWN`: the run's invocation, whose events in the session tell how far it got. */
    invocationId?: string;
  };
}

/** 5xx codes whose messages the server writes itself, without internal detail: sent as they are. */
const OWN_MESSAGES: ReadonlySet<string> = new Set(['SERVER_CLOSING', 'CANCEL_PENDING', 'RUN_OUTCOME_UNKNOWN']);

/**
 * 5xx codes whose own message a client on the server's machine is told (see {@link HttpError.toBody}):
 * an app that failed to load names its file, line and reason, which the developer at the dev UI needs.
 */
const LOCAL_MESSAGES: ReadonlySet<string> = new Set(['AGENT_LOAD']);

/** What the client of a 5xx is told, by code (see {@link HttpError.clientMessage}). */
const SERVER_SIDE_MESSAGES: Readonly<Record<string, string>> = {
  STORAGE:
    "The session store failed, so the request was not completed. Retry once the store is back; the server's log (onError) has the store's message.",
  AGENT_LOAD:
    "The app could not be loaded: its module or definition failed. The server's log (onError) names the file and the reason.",
  AGENTS_DIR: "The agents directory could not be read. The server's log (onError) has the reason.",
  QUEUE_UNAVAILABLE:
    "The run queue (Redis) did not answer, so nothing was queued. Retry once it is back; the server's log (onError) has the reason.",
};

/** An error the API reports with an HTTP status (bad request, unknown app, busy session, ...). */
export class HttpError extends TroupeError {
  /** The invocation the error is about, sent in the body (`RUN_OUTCOME_UNKNOWN`). */
  readonly invocationId: string | undefined;

  constructor(
    readonly status: ErrorStatus,
    code: ErrorCode,
    message: string,
    readonly field?: string,
    options?: { cause?: unknown; invocationId?: string },
  ) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.invocationId = options?.invocationId;
  }

  /**
   * What the client is told. A 4xx says what to fix, in full. A 5xx says only what failed: the
   * message of the failure itself may hold file paths, database hosts or a stack, and goes to
   * `onError` (the server's log) instead; only the server's own 5xx messages, which hold none, are sent.
   */
  get clientMessage(): string {
    if (this.status < 500 || OWN_MESSAGES.has(this.code)) return this.message;
    return (
      SERVER_SIDE_MESSAGES[this.code] ??
      `The server failed to handle the request (${this.code}); the server's log (onError) has the details.`
    );
  }

  /**
   * The response body for this error, with the request's id when given (5xx). `local`: the client is
   * on the server's machine (a server bound to loopback only), and is told the message of an app
   * that failed to load in full.
   */
  toBody(requestId?: string, local = false): ErrorBody {
    const message = local && LOCAL_MESSAGES.has(this.code) ? this.message : this.clientMessage;
    return {
      error: {
        code: this.code,
        message: requestId === undefined ? message : `${message} Request id: ${requestId}.`,
        ...(this.field === undefined ? {} : { field: this.field }),
        ...(requestId === undefined ? {} : { requestId }),
        ...(this.invocationId === undefined ? {} : { invocationId: this.invocationId }),
      },
    };
  }
}

// Core's errors that reach a request, by code (not all are exported as classes). A store that is
// down (STORAGE) is 503, not 500: the request was fine and may succeed once the store is back.
const STATUS_BY_CODE: Readonly<Record<string, ErrorStatus>> = {
  SESSION_NOT_FOUND: 404,
  SESSION_BUSY: 409,
  SESSION_EXISTS: 409,
  PENDING_INTERRUPT: 409,
  INTERRUPT_ANSWERED: 409,
  STALE_SESSION: 409,
  INVOCATION_EXISTS: 409,
  RUN_NOT_FOUND: 404,
  LEASE_LOST: 409,
  INTERRUPT_RESPONSE: 400,
  CONFIGURATION: 400,
  INPUT_VALIDATION: 400,
  INVALID_STATE_KEY: 400,
  INVALID_ARTIFACT: 400,
  STORAGE: 503,
  QUEUE_UNAVAILABLE: 503,
};

/**
 * Codes of run failures caused by the store rather than by the agents: the session could not
 * record the run (STORAGE), another process took it over (LEASE_LOST), or another process wrote to
 * it mid-run (STALE_SESSION, with a store without leases). `/run` answers them with their HTTP
 * status instead of a 200, since the run's error event could not be stored.
 */
const STORE_FAILURES: ReadonlySet<string> = new Set(['STORAGE', 'LEASE_LOST', 'STALE_SESSION']);

/**
 * True for the code of a request the server refuses as the client's mistake (a 4xx: busy session,
 * open interrupts, bad input), as opposed to a failure of the run or of the server.
 */
export function isRefusalCode(code: string): boolean {
  const status = STATUS_BY_CODE[code];
  return status !== undefined && status < 500;
}

/** True for an error that means the store, not the agents, stopped the run (see {@link toHttpError}). */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof TroupeError && STORE_FAILURES.has(error.code);
}

/**
 * Turns anything thrown while handling a request into an {@link HttpError}: core's errors keep
 * their code with the matching status; anything else is a 500 `INTERNAL`. The original is the
 * `cause` (what a 5xx's client is told is {@link HttpError.clientMessage}).
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  let wrapper: HttpError;
  if (error instanceof TroupeError) {
    wrapper = new HttpError(STATUS_BY_CODE[error.code] ?? 500, error.code, httpMessage(error), undefined, {
      cause: error,
    });
  } else {
    const message = error instanceof Error ? error.message : String(error);
    wrapper = new HttpError(500, 'INTERNAL', `The server failed to handle the request: ${message}`, undefined, {
      cause: error,
    });
  }
  wrappers.add(wrapper);
  return wrapper;
}

const wrappers = new WeakSet<HttpError>();

/**
 * What failed, for the server's log: the error an {@link HttpError} was made from by
 * {@link toHttpError} (the store's StorageError, the bug's Error), or the HttpError itself when the
 * server raised it (its message says what it was doing, e.g. which app file failed to load).
 */
export function reportedError(http: HttpError): unknown {
  return wrappers.has(http) ? http.cause : http;
}

/** 404 for a session the store does not have, saying how to make it. */
export function sessionNotFound(key: { appName: string; userId: string; sessionId: string }): HttpError {
  const { appName, userId, sessionId } = key;
  return new HttpError(
    404,
    'SESSION_NOT_FOUND',
    `Session '${sessionId}' not found for app '${appName}' and user '${userId}'. Create it with POST /apps/${appName}/users/${userId}/sessions.`,
  );
}
