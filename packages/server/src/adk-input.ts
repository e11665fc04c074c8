import {
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  type FunctionCall,
  type FunctionResponse,
  type InterruptInfo,
} from '@troupe/core';

/**
 * ADK's form of a graph workflow's request for input (`RequestInput`), so ADK clients (ADK's web
 * UI, ADK JS's `getUserInputRequests`) can answer it. ADK asks with a function call named
 * `adk_request_input` whose args are `{ interruptId, message?, payload?, response_schema? }`, listed
 * in the event's `longRunningToolIds`; the client answers with a function response of the same name
 * and id, holding an object or `{ result: value }` (ADK's web UI wraps free text that way).
 *
 * The call's id is the interrupt's id. Core already keeps the args in ADK's shape; the server only
 * encodes: the stored events stay core's (the interrupt event, the resume record).
 */

/** True for an interrupt raised by a workflow node's `RequestInput`. */
export function isInputRequest(interrupt: InterruptInfo): boolean {
  return interrupt.kind === 'input' && interrupt.toolName === REQUEST_INPUT_FUNCTION_CALL_NAME;
}

/** The `adk_request_input` call standing for a workflow's request for input. */
export function inputCall(interrupt: InterruptInfo): FunctionCall {
  return { id: interrupt.id, name: REQUEST_INPUT_FUNCTION_CALL_NAME, args: interrupt.args };
}

/** The `adk_request_input` response standing for a stored answer: an object as it is, any other value as `{ result: value }`. */
export function inputResponse(interruptId: string, answer: unknown): FunctionResponse {
  const response =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer)
      ? { ...(answer as Record<string, unknown>) }
      : { result: answer };
  return { id: interruptId, name: REQUEST_INPUT_FUNCTION_CALL_NAME, response };
}
