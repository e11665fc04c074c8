import { HttpError } from '../http-error.js';

/** The 400 for a request parameter at fault (`param` in OpenAI's spelling), saying why and what to send. */
export function invalid(param: string, why: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', `Invalid request body: field '${param}': ${why}.`, param);
}

/** A short description of a value for error messages: `a number (3)`, `null`, `an array`. */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const shown = JSON.stringify(value);
  return `${typeof value === 'string' ? 'the string' : `a ${typeof value}`} ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}`;
}
