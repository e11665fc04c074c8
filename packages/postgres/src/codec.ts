import { checkValueFormat, encodeJson } from '@troupe/core/stores';

/**
 * The format of every stored value (events, session state, `app:` and `user:` values), kept in a
 * `format` column beside its JSONB. Format 1 is the value as plain JSON. A change of encoding gets
 * a new number, and `decodeValue` keeps reading the older ones, so rows never need rewriting.
 */
export const VALUE_FORMAT = 1;

/** Serialises a value for a JSONB parameter; `what` names it in the error when it is not JSON data. */
export const encodeValue = encodeJson;

/** Reads a stored value (already parsed from JSONB by pg) written in `format`. */
export function decodeValue<T>(format: number, value: unknown, what: () => string): T {
  checkValueFormat(format, VALUE_FORMAT, what, '@troupe/postgres');
  return value as T;
}
