import {
  DEFAULT_JSON_LIMITS,
  jsonValueProblem,
  nestingProblem,
  type JsonLimitProblem,
  type JsonLimits,
} from '@troupe/core/hosting';
import { HttpError } from './http-error.js';

// The limits themselves are core's (`@troupe/core/hosting`), shared by every protocol route (the
// HTTP API, AG-UI, A2A); here they are worded as the HTTP API's 400s.
export { DEFAULT_JSON_LIMITS, type JsonLimits };

/** Refuses JSON text nested deeper than `maxDepth`, before it is parsed, naming the field path. */
export function checkNesting(text: string, maxDepth: number): void {
  const problem = nestingProblem(text, maxDepth);
  if (problem) throw refusal(problem);
}

/**
 * Checks a parsed body: string and key lengths, array and object sizes, and no reserved key
 * (`__proto__`, `constructor`, `prototype`) at any depth. Errors name the field path.
 */
export function checkJsonValue(value: unknown, limits: Required<JsonLimits>): void {
  const problem = jsonValueProblem(value, limits);
  if (problem) throw refusal(problem);
}

/**
 * Holds JSON text that a string field of the body carries (and that the server parses, such as an
 * AG-UI tool message's result) to the body's own limits: the string itself passed them, the value
 * parsed from it must too. Text that is not JSON is left alone (it is used as text).
 */
export function checkEmbeddedJson(text: string, limits: Required<JsonLimits>, field: string): void {
  let problem = nestingProblem(text, limits.maxDepth);
  if (!problem) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    problem = jsonValueProblem(value, limits);
  }
  if (problem) throw refusal(problem, field);
}

/** The 400 for a problem; `within` is the string field holding the JSON, when the problem is in one. */
function refusal(problem: JsonLimitProblem, within?: string): HttpError {
  const field = within ?? problem.field;
  const where =
    within === undefined ? `field '${field}'` : `field '${within}' holds JSON whose field '${problem.field}'`;
  if (problem.kind === 'reserved-key')
    return new HttpError(
      400,
      'RESERVED_KEY',
      `Invalid request body: ${where}: the key '${problem.key}' is reserved (it could change object prototypes); rename it.`,
      field,
    );
  return new HttpError(
    400,
    'LIMIT_EXCEEDED',
    `Invalid request body: ${where} ${problem.what}. Send less, or raise createApp's jsonLimits.${problem.option}.`,
    field,
  );
}
