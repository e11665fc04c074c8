import {
  InterruptAnsweredError,
  InterruptResponseError,
  InvocationExistsError,
  PendingInterruptError,
  SessionBusyError,
  SessionNotFoundError,
  type SessionKey,
  type TroupeError,
} from '@troupe/core';

/**
 * Core's errors name their fix as code calling the library applies it (`runner.resume(...)`,
 * `runner.sessionService.createSession(...)`), apart from the problem (`TroupeError.remedy`). A
 * client of the HTTP API has no runner: it is told the route to call instead, by code, built from
 * the session the error names. Codes without an HTTP remedy here keep only the problem when core's
 * remedy is an in-process call.
 */
export function httpMessage(error: TroupeError): string {
  const remedy = httpRemedy(error);
  if (remedy !== undefined) return `${error.problem} ${remedy}`;
  return error.remedy === undefined ? error.message : error.problem;
}

/** The fix a client of the HTTP API applies, for the codes that have one; undefined for the others. */
function httpRemedy(error: TroupeError): string | undefined {
  if (error instanceof SessionNotFoundError && error.session) {
    const { appName, userId, sessionId } = error.session;
    return `Create it with POST /apps/${appName}/users/${userId}/sessions/${sessionId}, or send the id of an existing session (GET /apps/${appName}/users/${userId}/sessions lists them).`;
  }
  if (error instanceof PendingInterruptError && error.session) {
    return `Answer them first with POST ${sessionPath(error.session)}/resume and { "responses": { "<interrupt id>": <answer> } }.`;
  }
  if (error instanceof InvocationExistsError && error.session && error.invocationId !== undefined) {
    return `Continue it with POST ${sessionPath(error.session)}/resume and { "invocationId": "${error.invocationId}" }, or send a new invocationId.`;
  }
  if (error instanceof InterruptResponseError && error.session && error.remedy !== undefined) {
    return `GET ${sessionPath(error.session)} shows the session's events; the open interrupts are on its last ones (their interrupt.id).`;
  }
  if (error instanceof InterruptAnsweredError && error.session) {
    return `GET ${sessionPath(error.session)} shows that answer and what followed it.`;
  }
  if (error instanceof SessionBusyError && error.session) {
    if (error.retryAfterMs === undefined) {
      return `Wait for the run to end, cancel it with POST ${sessionPath(error.session)}/cancel, or use another session.`;
    }
    return `Retry in ${Math.ceil(error.retryAfterMs / 1000)} s (the Retry-After header), or use another session.`;
  }
  return undefined;
}

/** `/apps/{app}/users/{user}/sessions/{id}`. */
export function sessionPath(session: SessionKey): string {
  return `/apps/${session.appName}/users/${session.userId}/sessions/${session.sessionId}`;
}

/** The `Retry-After` header (whole seconds) of an error that says when to retry, if it does. */
export function retryAfterOf(error: unknown): string | undefined {
  if (!(error instanceof SessionBusyError) || error.retryAfterMs === undefined) return undefined;
  return String(Math.max(1, Math.ceil(error.retryAfterMs / 1000)));
}
