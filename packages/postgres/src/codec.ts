import { SchemaVersionError } from '@troupe/core';
import { encodeJson } from '@troupe/core/stores';

/**
 * The format of every stored value (events, session state, `app:` and `user:` values), kept in a
 * `format` column beside its JSONB. This is the newest format this release writes; it reads every
 * older one, so rows never need rewriting.
 *
 * - Format 1: the value as plain JSON.
 * - Format 2: JSON in which the text JSONB refuses is escaped (see {@link encodeValue}).
 *
 * A value is written in format 1 whenever it needs no escaping (nearly always), so its row is
 * byte for byte what earlier releases wrote and reading it costs nothing extra.
 */
export const VALUE_FORMAT = 2;

/** Plain JSON. */
export const PLAIN_FORMAT = 1;

/** A value ready for a JSONB parameter: its JSON text and the format it is in. */
export interface EncodedValue {
  text: string;
  format: number;
}

/**
 * Why escape, and why this way: JavaScript strings may hold NUL (U+0000) and lone UTF-16
 * surrogates, and model output does contain them; JSONB refuses both (`\u0000` and an unpaired
 * `\ud800` are invalid there). A text or bytea column would hold them but would make events and
 * state unreadable to SQL (no `data->'content'`, no jsonb operators for the state merge on append).
 * So only the offending characters are replaced, inside the JSON text, by the marker U+FFFD (the
 * Unicode "replacement character", which a person reading the row takes for "something that could
 * not be shown here") followed by the four hex digits of the UTF-16 code unit: `a\u0000b` is stored as
 * `a\uFFFD0000b`. The marker itself, when it occurs in the data, is escaped the same way (`\uFFFDfffd`),
 * so in format 2 every marker starts an escape and decoding is exact. Everything else stays plain JSON.
 */
const MARKER = '\uFFFD';
// In JSON.stringify's output a NUL is always `\u0000` and a lone surrogate always a lowercase `\udXXX`
// escape; `\\` is matched first so an escaped backslash followed by "u0000" is left alone.
const NEEDS_ESCAPE = /\\u0000|\\ud[89a-f]|\uFFFD/;
const ESCAPES = /\\\\|\\u0000|\\ud[89a-f][0-9a-f]{2}|\uFFFD/g;
const ESCAPED = /\uFFFD([0-9a-f]{4})/g;

/** Serialises a value for a JSONB parameter; `what` names it in the error when it is not JSON data. */
export function encodeValue(value: unknown, what: () => string): EncodedValue {
  return escapeJson(encodeJson(value, what));
}

/** Puts JSON text (as JSON.stringify writes it) into the format JSONB accepts. */
export function escapeJson(json: string): EncodedValue {
  if (!NEEDS_ESCAPE.test(json)) return { text: json, format: PLAIN_FORMAT };
  let changed = false;
  const text = json.replace(ESCAPES, (match) => {
    if (match === '\\\\') return match;
    changed = true;
    return match === MARKER ? `${MARKER}fffd` : MARKER + match.slice(2);
  });
  return { text, format: changed ? VALUE_FORMAT : PLAIN_FORMAT };
}

/**
 * A state key as stored in SQL text columns and JSONB objects: escaped like values, whatever the
 * format of the value it names, so one key always has one spelling (a migration escaped the marker
 * in keys written before format 2).
 */
export function encodeKey(key: string): string {
  if (!key.includes('\u0000') && !key.includes(MARKER) && !SURROGATE.test(key)) return key;
  return JSON.parse(escapeJson(JSON.stringify(key)).text) as string;
}
// Any surrogate, paired or not, makes encodeKey look; JSON.stringify then tells the lone ones.
const SURROGATE = /[\ud800-\udfff]/;

/** The key `encodeKey` was given. */
export function decodeKey(stored: string): string {
  return stored.includes(MARKER) ? unescapeString(stored) : stored;
}

/** Reads a stored value (already parsed from JSONB by pg) written in `format`. */
export function decodeValue<T>(format: number, value: unknown, what: () => string): T {
  if (format === PLAIN_FORMAT) return value as T;
  if (format !== VALUE_FORMAT) {
    throw new SchemaVersionError(
      `${what()} is stored in value format ${format}, but this @troupe/postgres reads only formats ${PLAIN_FORMAT} to ${VALUE_FORMAT}. It was written by a newer release: upgrade @troupe/postgres to read it.`,
      format,
      VALUE_FORMAT,
    );
  }
  // Rare (only values that needed escaping), so a second parse is cheaper than walking every value.
  return JSON.parse(JSON.stringify(value).replace(ESCAPED, '\\u$1')) as T;
}

function unescapeString(stored: string): string {
  return JSON.parse(JSON.stringify(stored).replace(ESCAPED, '\\u$1')) as string;
}
