import type { Session } from '@troupe/core';
import { adkAnswers, answerResume, textAnswerResume, type AnswerResume } from './adk-answers.js';
import { HttpError, sessionNotFound } from './http-error.js';
import type { RunBody } from './request-body.js';
import type { ServerContext } from './server-context.js';

/** The resume a `/run` body asks for by answering ADK's `adk_request_confirmation` or `adk_request_input` calls, or a workflow's one request for input in text. */
export interface AdkResume extends AnswerResume {
  /** The session as read before the resume. */
  session: Session;
  /** The answer is the message's text, to the one open `RequestInput` (the runner stores the message with it). */
  text?: true;
}

/** Options of {@link adkResumeOf}. */
export interface AdkResumeOptions {
  /**
   * Also tell whether a plain-text message answers a workflow's one open request for input, which
   * costs a session read. In process the runner tells it too; the server needs to know when it
   * writes the body's stateDelta first, or puts the run back on a queue.
   */
  textAnswers: boolean;
  /** Reads the session, when the caller shares one read with its other checks. @default a read of its own */
  readSession?: () => Promise<Session | undefined>;
}

/**
 * The resume a `/run` or `/run_sse` body asks for when its message answers ADK's requests (see
 * {@link answerResume} and {@link textAnswerResume}), or undefined for an ordinary turn. Bad
 * answers, an `input` beside them and an unknown session are refused here, before anything is
 * stored.
 */
export async function adkResumeOf(
  ctx: ServerContext,
  body: RunBody,
  options: AdkResumeOptions,
): Promise<AdkResume | undefined> {
  const answers = adkAnswers(body.newMessage);
  const parts = body.newMessage?.parts ?? [];
  const maybeText = !answers && options.textAnswers && parts.length > 0 && parts.every((p) => 'text' in p);
  if (!answers && !maybeText) return undefined;
  if (answers && body.input) refuseInput('requests');
  const { appName, userId, sessionId } = body;
  const session = await (options.readSession?.() ?? ctx.sessionService.getSession({ appName, userId, sessionId }));
  if (!session) {
    throw sessionNotFound({ appName, userId, sessionId });
  }
  const resume = answers
    ? answerResume(session, answers, body.invocationId)
    : textAnswerResume(session, body.newMessage, body.invocationId);
  if (!resume) return undefined;
  if (answers) return { session, ...resume };
  if (body.input) refuseInput('request for input');
  return { session, ...resume, text: true };
}

function refuseInput(what: string): never {
  throw new HttpError(
    400,
    'INVALID_REQUEST',
    `Invalid request body: field 'input': the message answers the paused run's ${what}, and a resumed run keeps its own input. Leave input out.`,
    'input',
  );
}

/** True when the body writes state with its answers (ADK's web UI sends edited state with its next message). */
export function hasStateDelta(body: RunBody): body is RunBody & { stateDelta: Record<string, unknown> } {
  return body.stateDelta !== undefined && body.stateDelta !== null && Object.keys(body.stateDelta).length > 0;
}
