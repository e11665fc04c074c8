import { type Session, type SessionService } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { HttpError, sessionNotFound } from './http-error.js';

/**
 * Refuses a resume that answers nothing, before anything is stored: without answers the runner
 * would raise (and store) the same interrupts again at every call. A resume without answers is
 * for an invocation that stopped without asking anything (its process died): it needs that
 * `invocationId`, and the invocation must have no open interrupts.
 */
export async function assertResumeAnswers(
  sessionService: SessionService,
  key: { appName: string; userId: string; sessionId: string },
  responses: Readonly<Record<string, unknown>> | null | undefined,
  invocationId: string | null | undefined,
): Promise<void> {
  if (responses && Object.keys(responses).length > 0) return;
  if (!invocationId) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'responses': the resume answers nothing, so it would only raise the open interrupts again. Send answers by interrupt id, e.g. { "responses": { "<interrupt id>": true } }, or the invocationId of a run to continue after its process stopped.`,
      'responses',
    );
  }
  const session = await sessionService.getSession(key);
  // A missing session is reported by the runner, in its own words.
  const open = session ? openInterrupts(session.events, invocationId) : [];
  if (open.length > 0) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'responses': invocation '${invocationId}' of session '${key.sessionId}' waits for answers to ${open.map((i) => `'${i.id}'`).join(', ')}, and the resume gives none. Send them in responses.`,
      'responses',
    );
  }
}

/**
 * The invocation a resume without an `invocationId` answers, as the runner picks it: the session's
 * latest invocation, when it has open interrupts. A 400 naming the field when there is none.
 */
export function interruptedInvocation(session: Session): string {
  const last = session.events.at(-1);
  if (!last || openInterrupts(session.events).length === 0) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'invocationId': session '${session.id}' has no open interrupts to answer. Send the invocationId (the run id) of the paused run.`,
      'invocationId',
    );
  }
  return last.invocationId;
}

/**
 * Refuses a new turn on a session that waits for answers (409 `PENDING_INTERRUPT`, as the runner
 * does), or that does not exist (404), before a background run is queued for it: the worker would
 * only refuse it, after the client got its 200 or 202.
 */
export async function assertNoOpenInterrupts(
  sessionService: SessionService,
  key: { appName: string; userId: string; sessionId: string },
  readSession: () => Promise<Session | undefined> = () => sessionService.getSession(key),
): Promise<void> {
  const session = await readSession();
  if (!session) {
    throw sessionNotFound(key);
  }
  const open = openInterrupts(session.events);
  if (open.length > 0) {
    throw new HttpError(
      409,
      'PENDING_INTERRUPT',
      `Session '${key.sessionId}' has ${open.length} unanswered interrupt(s) (${open.map((i) => i.id).join(', ')}). Answer them with POST /apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}/resume first.`,
    );
  }
}
