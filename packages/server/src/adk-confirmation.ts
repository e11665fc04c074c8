import type { Event, FunctionCall, FunctionResponse, InterruptInfo } from '@troupe/core';
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

/** `{ confirmed, payload? }`, also as ADK's web UI may wrap it: `{ response: '{"confirmed":true}' }`. */
export function readConfirmation(response: Record<string, unknown>, field: string): Confirmation {
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
