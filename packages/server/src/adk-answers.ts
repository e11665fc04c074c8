import { REQUEST_INPUT_FUNCTION_CALL_NAME, type Content, type Event, type Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { readConfirmation, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, resumeRecordAnswers } from './adk-confirmation.js';
import { isInputRequest } from './adk-input.js';
import { HttpError } from './http-error.js';

/**
 * The answers ADK's clients give in a run's `newMessage`: function responses to the
 * `adk_request_confirmation` and `adk_request_input` calls the server sent (see adk-confirmation.ts
 * and adk-input.ts), and how they map onto the session's paused invocation.
 */

/** What an ADK answer answers. */
export type AdkAnswerKind = 'confirmation' | 'input';

/** One answer found in a run's `newMessage`: the id of the call it answers, and where it was. */
export interface AdkAnswer {
  kind: AdkAnswerKind;
  callId: string;
  /** A confirmation's `{ confirmed, payload? }`, or an input's response as sent (the runner unwraps `{ result: v }`). */
  answer: unknown;
  /** The body path of the function response, for error messages. */
  field: string;
}

const CALL_NAMES: Record<AdkAnswerKind, string> = {
  confirmation: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  input: REQUEST_INPUT_FUNCTION_CALL_NAME,
};

const NOUNS: Record<AdkAnswerKind, string> = { confirmation: 'confirmation', input: 'request for input' };

/**
 * The ADK answers a run's message carries, or undefined when it carries none (an ordinary turn).
 * A message that mixes them with anything else, or a confirmation that is not
 * `{ confirmed: boolean, payload? }`, is a 400 naming the part.
 */
export function adkAnswers(message: Content | undefined): AdkAnswer[] | undefined {
  const parts = message?.parts ?? [];
  const answers: AdkAnswer[] = [];
  parts.forEach((part, index) => {
    if (!('functionResponse' in part)) return;
    const { id, name, response } = part.functionResponse;
    const field = `newMessage.parts.${index}.functionResponse`;
    if (name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)
      answers.push({
        kind: 'confirmation',
        callId: id,
        answer: readConfirmation(response, `${field}.response`),
        field,
      });
    else if (name === REQUEST_INPUT_FUNCTION_CALL_NAME)
      answers.push({ kind: 'input', callId: id, answer: response, field });
  });
  if (answers.length === 0) return undefined;
  if (answers.length !== parts.length) {
    const names = [...new Set(answers.map((a) => `'${CALL_NAMES[a.kind]}'`))].join(' and ');
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'newMessage.parts': a message that answers ${names} resumes the paused run and can hold nothing else. Send the answers alone, then the next message once the run has ended.`,
      'newMessage.parts',
    );
  }
  return answers;
}

/** The paused invocation a message answers and its answers by interrupt id, as the runner's resume takes them. */
export interface AnswerResume {
  invocationId: string;
  responses: Record<string, unknown>;
}

/**
 * The resume the answers ask for. An answer is matched to the session's interrupts by the id of
 * its call (the interrupt's id) or, for a confirmation, failing that, by the id of the original
 * tool call, the latest first. An id that matches no such interrupt of the session, answers that
 * span invocations, an `invocationId` that is not theirs, or an interrupt left for a newer turn
 * are 400s, and one answered already is a 409 `INTERRUPT_ANSWERED`, before anything is stored; the
 * runner checks again under the session's claim.
 */
export function answerResume(
  session: Session,
  answers: readonly AdkAnswer[],
  invocationId: string | null | undefined,
): AnswerResume {
  const responses: Record<string, unknown> = {};
  const asked = new Map<string, AdkAnswer>();
  let answered: string | undefined;
  for (const answer of answers) {
    const { kind, callId, field } = answer;
    const event = findRequest(session.events, kind, callId);
    if (!event) {
      throw new HttpError(
        400,
        'INTERRUPT_RESPONSE',
        `Invalid request body: field '${field}.id': session '${session.id}' has no '${CALL_NAMES[kind]}' call '${callId}'. Answer with the id of that function call, as the session's events show it.`,
        `${field}.id`,
      );
    }
    if (answered !== undefined && event.invocationId !== answered) {
      throw new HttpError(
        400,
        'INVALID_REQUEST',
        `Invalid request body: field '${field}.id': '${callId}' belongs to invocation '${event.invocationId}', the other answers to '${answered}'. Answer one paused run at a time.`,
        `${field}.id`,
      );
    }
    answered = event.invocationId;
    responses[event.interrupt!.id] = answer.answer;
    asked.set(event.interrupt!.id, answer);
  }
  checkInvocationId(answered!, invocationId);
  const open = new Set(openInterrupts(session.events, answered).map((interrupt) => interrupt.id));
  for (const [id, { kind, field }] of asked) {
    if (open.has(id)) continue;
    if (answeredBefore(session.events, id)) {
      const path = `/apps/${session.appName}/users/${session.userId}/sessions/${session.id}`;
      throw new HttpError(
        409,
        'INTERRUPT_ANSWERED',
        `Field '${field}.id': the ${NOUNS[kind]} '${id}' of invocation '${answered}' in session '${session.id}' was already answered; this answer was not stored, and the first one stands. GET ${path} shows that answer and what followed it.`,
        `${field}.id`,
      );
    }
    throw new HttpError(
      400,
      'INTERRUPT_RESPONSE',
      `Invalid request body: field '${field}.id': the ${NOUNS[kind]} '${id}' of session '${session.id}' was left for a newer turn; nothing waits for it. Open interrupts: ${[...open].join(', ') || 'none'}.`,
      `${field}.id`,
    );
  }
  return { invocationId: answered!, responses };
}

/**
 * The resume a plain-text message asks for, as ADK answers a workflow: while exactly one interrupt
 * is open and it is a `RequestInput`, the text is its answer. Undefined otherwise (a new turn,
 * which the runner refuses while interrupts are open).
 */
export function textAnswerResume(
  session: Session,
  message: Content | undefined,
  invocationId: string | null | undefined,
): AnswerResume | undefined {
  const parts = message?.parts ?? [];
  if (parts.length === 0 || !parts.every((p) => 'text' in p)) return undefined;
  const open = openInterrupts(session.events);
  if (open.length !== 1 || !isInputRequest(open[0]!)) return undefined;
  const paused = session.events.at(-1)!.invocationId;
  checkInvocationId(paused, invocationId);
  const text = parts.map((p) => ('text' in p ? p.text : '')).join('');
  return { invocationId: paused, responses: { [open[0]!.id]: text } };
}

function checkInvocationId(answered: string, invocationId: string | null | undefined): void {
  if (invocationId && invocationId !== answered) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'invocationId': the answers are for invocation '${answered}', not '${invocationId}'. Leave invocationId out, or send that one.`,
      'invocationId',
    );
  }
}

/** True when a stored resume record answered interrupt `id`. */
function answeredBefore(events: readonly Event[], id: string): boolean {
  return events.some((event) => {
    const answers = resumeRecordAnswers(event);
    return answers !== undefined && Object.hasOwn(answers, id);
  });
}

/** The latest event asking what `callId` answers. */
function findRequest(events: readonly Event[], kind: AdkAnswerKind, callId: string): Event | undefined {
  let byToolCall: Event | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const interrupt = events[i]!.interrupt;
    if (!interrupt) continue;
    if (kind === 'input') {
      if (isInputRequest(interrupt) && interrupt.id === callId) return events[i];
      continue;
    }
    if (interrupt.kind !== 'confirmation') continue;
    if (interrupt.id === callId) return events[i];
    if (interrupt.toolCallId === callId) byToolCall ??= events[i];
  }
  return byToolCall;
}
