import { type Content, contentText, type Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { isInputRequest } from '../adk-input.js';
import { HttpError } from '../http-error.js';
import { sessionPath } from '../http-remedy.js';
import { invalid } from './invalid.js';
import { textAnswer } from './text-answer.js';

/** What one chat completion request does in its session: a new turn, or the answer to the question it waits for. */
export type ChatTurn =
  | { kind: 'run'; message: Content }
  | {
      kind: 'answer';
      /** The paused invocation, which goes on. */
      invocationId: string;
      /** The answer by interrupt id, as `runner.resume` takes it. */
      responses: Record<string, unknown>;
      /**
       * For a workflow's `RequestInput`: the user's message, which the runner takes as the answer
       * and stores (a run in this process hands it to `runner.start`, as ADK's clients answer).
       */
      message?: Content;
    };

/**
 * Decides what the request's last (user) message is to the session: a new turn when nothing is
 * open; the answer when the session waits for one question (SPEC §17.1: plain text answers the one
 * pending request; see {@link textAnswer}); refused while several are open (409
 * `PENDING_INTERRUPT`: a message cannot say which it answers; the resume route can). `param` is
 * the message's content in the request, for refusals. Nothing is stored here.
 */
export function planChatTurn(session: Session, message: Content, param: string): ChatTurn {
  const open = openInterrupts(session.events);
  if (open.length === 0) return { kind: 'run', message };
  const path = sessionPath({ appName: session.appName, userId: session.userId, sessionId: session.id });
  if (open.length > 1)
    throw new HttpError(
      409,
      'PENDING_INTERRUPT',
      `Session '${session.id}' waits for answers to ${open.length} questions (${open.map((i) => `'${i.id}'`).join(', ')}), and a chat message cannot say which one it answers. Answer them with POST ${path}/resume and { "responses": { "<interrupt id>": <answer> } }; then send the next message.`,
    );
  const interrupt = open[0]!;
  if (!message.parts.every((part) => 'text' in part))
    throw invalid(
      param,
      `session '${session.id}' waits for an answer to interrupt '${interrupt.id}', which is given in text; the message also holds media. Send the answer as text`,
    );
  const invocationId = session.events.at(-1)!.invocationId;
  const answer = textAnswer(interrupt, contentText(message), param);
  return {
    kind: 'answer',
    invocationId,
    responses: { [interrupt.id]: answer },
    ...(isInputRequest(interrupt) ? { message } : {}),
  };
}
