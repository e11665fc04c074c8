import {
  type Content,
  type Event,
  type FunctionCall,
  type FunctionResponse,
  type InterruptInfo,
  type Session,
} from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { HttpError } from './http-error.js';

/**
 * ADK's form of a confirmation interrupt, so ADK clients (ADK's web UI, ADK JS's
 * `getUserInputRequests`) can approve a Troupe tool. ADK asks with a function call named
 * `adk_request_confirmation` whose args are `{ originalFunctionCall, toolConfirmation }`, listed
 * in the event's `longRunningToolIds`; the client answers with a function response of the same
 * name and id, `{ confirmed, payload? }` (or that object as a JSON string under `response`).
 *
 * The call's id is the interrupt's id, so an answer names the interrupt it answers. The server
 * only encodes: the stored events stay core's (the interrupt event, the resume record).
 */

/** ADK's `REQUEST_CONFIRMATION_FUNCTION_CALL_NAME`. */
export const REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = 'adk_request_confirmation';

/** An answer an ADK client gave, as the runner takes it. */
export interface Confirmation {
  confirmed: boolean;
  payload?: unknown;
}

/** One answer found in a run's `newMessage`: the id of the call it answers, and where it was. */
export interface ConfirmationAnswer {
  callId: string;
  answer: Confirmation;
  /** The body path of the function response, for error messages. */
  field: string;
}

/** The `adk_request_confirmation` call standing for a confirmation interrupt. */
export function confirmationCall(interrupt: InterruptInfo): FunctionCall {
  const toolConfirmation: Record<string, unknown> = { hint: interrupt.hint ?? '', confirmed: false };
  if (interrupt.payload !== undefined) toolConfirmation.payload = interrupt.payload;
  return {
    id: interrupt.id,
    name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    args: {
      originalFunctionCall: { id: interrupt.toolCallId, name: interrupt.toolName, args: interrupt.args },
      toolConfirmation,
    },
  };
}

/** The `adk_request_confirmation` response standing for a stored answer to a confirmation. */
export function confirmationResponse(interruptId: string, answer: unknown): FunctionResponse {
  const response =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? { ...(answer as Record<string, unknown>) }
      : { confirmed: answer === true };
  return { id: interruptId, name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response };
}

/** The answers a resume record (the user event a resume stores) holds, by interrupt id; undefined for other events. */
export function resumeRecordAnswers(event: Event): Record<string, unknown> | undefined {
  if (event.author !== 'user') return undefined;
  const resume = event.actions.agentState?.resume;
  if (typeof resume !== 'object' || resume === null) return undefined;
  const responses = (resume as { responses?: unknown }).responses;
  return typeof responses === 'object' && responses !== null ? (responses as Record<string, unknown>) : undefined;
}

/**
 * The ADK confirmation answers a run's message carries, or undefined when it carries none (an
 * ordinary turn). A message that mixes them with anything else, or an answer that is not
 * `{ confirmed: boolean, payload? }`, is a 400 naming the part.
 */
export function confirmationAnswers(message: Content | undefined): ConfirmationAnswer[] | undefined {
  const parts = message?.parts ?? [];
  const answers: ConfirmationAnswer[] = [];
  parts.forEach((part, index) => {
    if (!('functionResponse' in part) || part.functionResponse.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME) return;
    const field = `newMessage.parts.${index}.functionResponse`;
    answers.push({
      callId: part.functionResponse.id,
      answer: readConfirmation(part.functionResponse.response, `${field}.response`),
      field,
    });
  });
  if (answers.length === 0) return undefined;
  if (answers.length !== parts.length) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'newMessage.parts': a message that answers '${REQUEST_CONFIRMATION_FUNCTION_CALL_NAME}' resumes the paused run and can hold nothing else. Send the answers alone, then the next message once the run has ended.`,
      'newMessage.parts',
    );
  }
  return answers;
}

/** `{ confirmed, payload? }`, also as ADK's web UI may wrap it: `{ response: '{"confirmed":true}' }`. */
function readConfirmation(response: Record<string, unknown>, field: string): Confirmation {
  let fields: unknown = response;
  const keys = Object.keys(response);
  if (keys.length === 1 && keys[0] === 'response') {
    fields = response.response;
    if (typeof fields === 'string') {
      try {
        fields = JSON.parse(fields);
      } catch {
        throw new HttpError(
          400,
          'INVALID_REQUEST',
          `Invalid request body: field '${field}.response': expected a JSON string such as '{"confirmed":true}'; got ${JSON.stringify(fields).slice(0, 100)}.`,
          `${field}.response`,
        );
      }
    }
  }
  const value =
    typeof fields === 'object' && fields !== null && !Array.isArray(fields)
      ? (fields as Record<string, unknown>)
      : undefined;
  if (typeof value?.confirmed !== 'boolean') {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field '${field}.confirmed': expected true or false, as ADK's ToolConfirmation { confirmed, payload? }; got ${JSON.stringify(value?.confirmed ?? fields)?.slice(0, 100)}.`,
      `${field}.confirmed`,
    );
  }
  return value.payload === undefined
    ? { confirmed: value.confirmed }
    : { confirmed: value.confirmed, payload: value.payload };
}

/**
 * The resume the answers ask for: the invocation they answer and the answers by interrupt id. An
 * answer is matched to the session's confirmation interrupts by the id of its
 * `adk_request_confirmation` call (the interrupt's id) or, failing that, by the id of the original
 * tool call, the latest first. An id that matches no confirmation of the session, answers that span
 * invocations, an `invocationId` that is not theirs, or a confirmation left for a newer turn are
 * 400s, and one answered already is a 409 `INTERRUPT_ANSWERED`, before anything is stored; the
 * runner checks again under the session's claim.
 */
export function confirmationResume(
  session: Session,
  answers: readonly ConfirmationAnswer[],
  invocationId: string | null | undefined,
): { invocationId: string; responses: Record<string, Confirmation> } {
  const responses: Record<string, Confirmation> = {};
  const fields = new Map<string, string>();
  let answered: string | undefined;
  for (const { callId, answer, field } of answers) {
    const event = findConfirmation(session.events, callId);
    if (!event) {
      throw new HttpError(
        400,
        'INTERRUPT_RESPONSE',
        `Invalid request body: field '${field}.id': session '${session.id}' has no '${REQUEST_CONFIRMATION_FUNCTION_CALL_NAME}' call '${callId}'. Answer with the id of that function call, as the session's events show it.`,
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
    responses[event.interrupt!.id] = answer;
    fields.set(event.interrupt!.id, field);
  }
  if (invocationId && invocationId !== answered) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `Invalid request body: field 'invocationId': the answers are for invocation '${answered}', not '${invocationId}'. Leave invocationId out, or send that one.`,
      'invocationId',
    );
  }
  const open = new Set(openInterrupts(session.events, answered).map((interrupt) => interrupt.id));
  for (const [id, field] of fields) {
    if (open.has(id)) continue;
    if (answeredBefore(session.events, id)) {
      const path = `/apps/${session.appName}/users/${session.userId}/sessions/${session.id}`;
      throw new HttpError(
        409,
        'INTERRUPT_ANSWERED',
        `Field '${field}.id': the confirmation '${id}' of invocation '${answered}' in session '${session.id}' was already answered; this answer was not stored, and the first one stands. GET ${path} shows that answer and what followed it.`,
        `${field}.id`,
      );
    }
    throw new HttpError(
      400,
      'INTERRUPT_RESPONSE',
      `Invalid request body: field '${field}.id': the confirmation '${id}' of session '${session.id}' was left for a newer turn; nothing waits for it. Open confirmations: ${[...open].join(', ') || 'none'}.`,
      `${field}.id`,
    );
  }
  return { invocationId: answered!, responses };
}

/** True when a stored resume record answered interrupt `id`. */
function answeredBefore(events: readonly Event[], id: string): boolean {
  return events.some((event) => {
    const answers = resumeRecordAnswers(event);
    return answers !== undefined && Object.hasOwn(answers, id);
  });
}

function findConfirmation(events: readonly Event[], callId: string): Event | undefined {
  let byToolCall: Event | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const interrupt = events[i]!.interrupt;
    if (interrupt?.kind !== 'confirmation') continue;
    if (interrupt.id === callId) return events[i];
    if (interrupt.toolCallId === callId) byToolCall ??= events[i];
  }
  return byToolCall;
}
