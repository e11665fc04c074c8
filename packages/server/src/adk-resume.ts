import type { Session } from '@troupe/core';
import {
  confirmationAnswers,
  confirmationResume,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  type Confirmation,
} from './adk-confirmation.js';
import { HttpError } from './http-error.js';
import type { RunBody } from './request-body.js';
import type { ServerContext } from './server-context.js';

/** The resume a `/run` body asks for by answering ADK's `adk_request_confirmation` calls. */
export interface AdkResume {
  /** The session as read before the resume. */
  session: Session;
  invocationId: string;
  /** Answers by interrupt id. */
  responses: Record<string, Confirmation>;
}

/**
 * The resume a `/run` or `/run_sse` body asks for when its message answers ADK confirmations (see
 * {@link confirmationResume}), or undefined for an ordinary turn. Bad answers, an `input` beside
 * them and an unknown session are refused here, before anything is stored.
 */
export async function adkResumeOf(ctx: ServerContext, body: RunBody): Promise<AdkResume | undefined> {
  const answers = confirmationAnswers(body.newMessage);
  if (!answers) return undefined;
  if (body.input) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'input': a message that answers '${REQUEST_CONFIRMATION_FUNCTION_CALL_NAME}' resumes the paused run, which keeps its own input. Leave input out.`,
      'input',
    );
  }
  const { appName, userId, sessionId } = body;
  const session = await ctx.sessionService.getSession({ appName, userId, sessionId });
  if (!session) {
    throw new HttpError(
      404,
      'SESSION_NOT_FOUND',
      `Session '${sessionId}' not found for app '${appName}' and user '${userId}'. Create it with POST /apps/${appName}/users/${userId}/sessions.`,
    );
  }
  return { session, ...confirmationResume(session, answers, body.invocationId) };
}

/** True when the body writes state with its answers (ADK's web UI sends edited state with its next message). */
export function hasStateDelta(body: RunBody): body is RunBody & { stateDelta: Record<string, unknown> } {
  return body.stateDelta !== undefined && body.stateDelta !== null && Object.keys(body.stateDelta).length > 0;
}
