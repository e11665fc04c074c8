import { checkValueFormat, encodeJson } from '@troupe/core/stores';

/**
 * The format of every stored value (events, session state, `app:` and `user:` values), kept in a
 * `format` column beside it. Format 1 is plain JSON. A change of encoding gets a new number, and
 * `decodeValue` keeps reading the older ones, so existing rows never need rewriting.
 */
export const VALUE_FORMAT = 1;

/** Serialises a value for storage; `what` names it in the error when it is not JSON data. */
export const encodeValue = encodeJson;

/** Reads a stored value written in `format`; `what` names it in the error for an unknown format. */
export function decodeValue<T>(format: number, text: string, what: () => string): T {
  checkValueFormat(format, VALUE_FORMAT, what, '@troupe/sqlite');
  return JSON.parse(text) as T;
}
