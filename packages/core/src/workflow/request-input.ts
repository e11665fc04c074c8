import type { Schema } from '../utils/schema.js';

/** The name of the function call a workflow's request for input goes out as (ADK's). */
export const REQUEST_INPUT_FUNCTION_CALL_NAME = 'adk_request_input';

/** What {@link RequestInput} takes. */
export interface RequestInputParams {
  /** A stable id of your own; by default it is derived from the node's path and run. */
  interruptId?: string;
  /** What to ask the human. */
  message?: string;
  /** Data to show beside the question. */
  payload?: unknown;
  /** The shape of an object answer (zod or JSON Schema); text answers are passed as they are. */
  responseSchema?: Schema;
}

/**
 * Returned or yielded by a workflow node to ask a human for input: the run pauses with an
 * `input` interrupt, and the answer becomes the node's output (or, with `rerunOnResume`, the node
 * runs again and reads it from `ctx.resumeInputs`).
 *
 * @example
 * const approve = node((ctx, draft) => new RequestInput({ message: `Send this? ${draft}` }), { name: 'approve' });
 */
export class RequestInput {
  readonly interruptId: string | undefined;
  readonly message: string | undefined;
  readonly payload: unknown;
  readonly responseSchema: Schema | undefined;

  constructor(params: RequestInputParams = {}) {
    this.interruptId = params.interruptId;
    this.message = params.message;
    this.payload = params.payload;
    this.responseSchema = params.responseSchema;
  }
}

Object.defineProperty(RequestInput.prototype, Symbol.for('troupe.requestInput'), { value: true });

/** True for a {@link RequestInput} made by any copy of @troupe/core. */
export function isRequestInput(value: unknown): value is RequestInput {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[Symbol.for('troupe.requestInput')] === true
  );
}

/** `{ result: v }` → `v`: how ADK's clients wrap a plain answer in a function response. */
export function unwrapAnswer(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'result') return (value as { result: unknown }).result;
  }
  return value;
}
