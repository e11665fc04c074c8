import { TroupeError } from '@troupe/core';

/** What went wrong with a remote A2A agent; the `code` of a {@link RemoteA2aError}. */
export type RemoteA2aErrorCode =
  /** Its agent card could not be fetched or read. */
  | 'A2A_CARD'
  /** A request to it failed: HTTP error, refused connection, JSON-RPC error. */
  | 'A2A_REQUEST'
  /** It did not answer within `timeoutMs`. */
  | 'A2A_TIMEOUT'
  /** Its task ended `failed`. */
  | 'A2A_TASK_FAILED'
  /** It refused the task (`rejected`). */
  | 'A2A_TASK_REJECTED'
  /** Its task was canceled by someone other than this run. */
  | 'A2A_TASK_CANCELED'
  /** It asks for credentials (`auth-required`). */
  | 'A2A_AUTH_REQUIRED'
  /** It refused an answer given to its question (it asked the same again). */
  | 'A2A_ANSWER_REFUSED'
  /** It no longer knows the task this invocation was following. */
  | 'A2A_TASK_LOST';

/** Where a {@link RemoteA2aError} happened. */
export interface RemoteA2aErrorDetails {
  /** The RemoteA2aAgent's name. */
  agentName: string;
  /** The agent card's URL, or the agent's endpoint when the card was given as an object. */
  url: string;
  /** The remote task, when there was one. */
  taskId?: string;
}

/**
 * A remote A2A agent failed, refused, could not be reached or timed out. The message names the
 * agent, the URL and what to do; `taskId` is the remote task when one existed.
 */
export class RemoteA2aError extends TroupeError {
  declare readonly code: RemoteA2aErrorCode;
  readonly agentName: string;
  readonly url: string;
  readonly taskId: string | undefined;

  constructor(
    code: RemoteA2aErrorCode,
    details: RemoteA2aErrorDetails,
    message: string,
    options?: { cause?: unknown },
  ) {
    const task = details.taskId ? ` (task ${details.taskId})` : '';
    super(code, `Remote agent '${details.agentName}' at ${details.url}${task}: ${message}`, options);
    this.agentName = details.agentName;
    this.url = details.url;
    this.taskId = details.taskId;
  }
}

/** Turns a failed request into a RemoteA2aError whose remedy fits the failure. */
export function requestError(details: RemoteA2aErrorDetails, operation: string, error: unknown): RemoteA2aError {
  if (error instanceof RemoteA2aError) return error;
  const text = describeFailure(error).replace(/\.+$/, '');
  return new RemoteA2aError('A2A_REQUEST', details, `${operation} failed: ${text}. ${remedy(text)}`, { cause: error });
}

/** The error's message with the network cause (ECONNREFUSED, ENOTFOUND...) that fetch hides. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  const causeText = cause instanceof Error && cause.message !== error.message ? cause.message : undefined;
  return [error.message, code && !causeText?.includes(code) ? code : undefined, causeText].filter(Boolean).join(': ');
}

function remedy(text: string): string {
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden/i.test(text)) {
    return "The remote refused the credentials: pass them with RemoteA2aAgent's `headers` option (e.g. { Authorization: 'Bearer <token>' }).";
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed|socket/i.test(text)) {
    return 'Check that the A2A server is running and reachable at that address.';
  }
  return "Check the remote agent's logs; the failure is reported by the remote side or on the way to it.";
}
