import type { Message, RunAgentInput } from '@ag-ui/core';
import {
  type Content,
  type InterruptInfo,
  isClientToolInterrupt,
  PendingInterruptError,
  type Session,
} from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { HttpError } from '../http-error.js';
import { newUserMessage, userContentOf } from './messages.js';
import { resumeAnswersOf } from './resume-answers.js';

/** What one AG-UI run does on its thread: a new turn, or the rest of the paused invocation. */
export type TurnPlan =
  | {
      kind: 'run';
      newMessage: Content;
      /** The paused invocation's interrupts were all abandoned: the new turn leaves them behind. */
      abandonInterrupts: boolean;
    }
  | {
      kind: 'resume';
      /** The paused invocation, which the run continues. */
      invocationId: string;
      responses: Record<string, unknown>;
      /** AG-UI ids of the client tool calls answered (their results are the client's already). */
      clientCalls: ReadonlySet<string>;
    };

/**
 * Decides what an input asks of a thread. Without open interrupts it is a new turn, whose message
 * is the input's last one. With open interrupts it answers them and the paused invocation goes on
 * (a new user message then may only come with every question abandoned, which starts a new turn
 * instead). What cannot be done is refused before anything is stored: an input that answers
 * nothing (409 `PENDING_INTERRUPT`, as `/run` does), one that both answers and brings a new
 * message, and an abandoned input request, which Troupe can only leave behind with a new turn.
 */
export function planTurn(input: RunAgentInput, session: Session): TurnPlan {
  const message = newUserMessage(input.messages);
  const open = openInterrupts(session.events);
  if (open.length === 0) {
    if (!message) throw nothingToRun(session.id, input.messages);
    return { kind: 'run', newMessage: userContentOf(message, input.context), abandonInterrupts: false };
  }
  const answers = resumeAnswersOf(open, input);
  if (message) {
    if (answers.answered.size > 0) {
      throw new HttpError(
        400,
        'INVALID_REQUEST',
        `Invalid request body: field 'messages': the input answers interrupts of thread '${session.id}' (${[...answers.answered].join(', ')}) and also brings a new user message. Send the answers first (a run whose last message is not the user's); the new message goes in the run after it.`,
        'messages',
      );
    }
    const unanswered = open.filter(
      (interrupt) => !isClientToolInterrupt(interrupt) && !answers.cancelled.has(interrupt.id),
    );
    if (unanswered.length > 0) throw pending(session.id, unanswered);
    return { kind: 'run', newMessage: userContentOf(message, input.context), abandonInterrupts: true };
  }
  if (answers.cancelledInputs.length > 0) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'resume': the input request(s) ${answers.cancelledInputs.map((i) => `'${i.id}'`).join(', ')} of thread '${session.id}' cannot be declined one by one. Answer with status 'resolved' and the value, or cancel every interrupt of the run together with a new user message to leave the paused run behind.`,
      'resume',
    );
  }
  if (Object.keys(answers.responses).length === 0) throw pending(session.id, open);
  return {
    kind: 'resume',
    invocationId: session.events.at(-1)!.invocationId,
    responses: answers.responses,
    clientCalls: answers.clientCalls,
  };
}

function pending(threadId: string, open: readonly InterruptInfo[]): PendingInterruptError {
  return new PendingInterruptError(
    `Thread '${threadId}' waits for answers to ${open.map((i) => `'${i.id}'`).join(', ')}. Answer them in the input's resume list ({ interruptId, status: 'resolved', payload } or status 'cancelled'), and client tool calls with tool messages, before a new turn.`,
    open.map((i) => i.id),
  );
}

function nothingToRun(threadId: string, messages: readonly Message[]): HttpError {
  const last = messages.at(-1);
  return new HttpError(
    400,
    'INVALID_REQUEST',
    `Invalid request body: field 'messages': thread '${threadId}' waits for nothing, so a run needs a new user message as the input's last message; ${last ? `the last one is a '${last.role}' message` : 'there are none'}.`,
    'messages',
  );
}
