/**
 * The shape a JSON request body may have, checked by every protocol route of a host (the HTTP API,
 * AG-UI, A2A) before the body is validated or used, so that a body the rest of the host (schema
 * validation, the stores, `JSON.stringify`, recursive code) would choke on is refused naming the
 * field, never a crash or a run that fails later. Each host words the refusal in its protocol (a
 * 400 of the HTTP API, a JSON-RPC -32602 of A2A): the checks here only say what is wrong.
 */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays; the body itself is level 1. @default 64 */
  maxDepth?: number;
  /** Longest string value or object key, in UTF-16 code units. @default 1_048_576 (the default body limit) */
  maxStringLength?: number;
  /** Most elements of one array, or keys of one object. @default 10_000 */
  maxItems?: number;
}

/** The default {@link JsonLimits}. */
export const DEFAULT_JSON_LIMITS: Readonly<Required<JsonLimits>> = Object.freeze({
  maxDepth: 64,
  maxStringLength: 1_048_576,
  maxItems: 10_000,
});

/** The default largest request body, in bytes (1 MiB), of every protocol route. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The longest id a client may send (an app, user or session id of the HTTP API, a message or
 * request id of A2A): ids are used as store keys, in paths and in every listing, so kept short.
 */
export const MAX_ID_LENGTH = 256;

/** What is wrong with a JSON body, as {@link nestingProblem} and {@link jsonValueProblem} report it. */
export type JsonLimitProblem =
  | {
      kind: 'limit';
      /** The field path, segments joined with dots (`params.message.parts`), or `(root)`. */
      field: string;
      /** What is over the limit, e.g. `has 50000 elements, over the limit of 10000`. */
      what: string;
      /** The limit to raise. */
      option: keyof JsonLimits;
    }
  | {
      kind: 'reserved-key';
      field: string;
      /** The key refused (`__proto__`, `constructor` or `prototype`). */
      key: string;
    };

/**
 * Keys refused at any depth of a body: copied into a plain object, `__proto__` would change its
 * prototype instead of adding a key, and `constructor`/`prototype` are refused as state keys.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

interface Frame {
  array: boolean;
  /** The current key (objects) or index (arrays): the frame's segment of a field path. */
  key: string;
  index: number;
  expectKey: boolean;
}

/**
 * What is nested deeper than `maxDepth` in JSON text, found before the text is parsed: parsing a
 * megabyte of `[` costs far more than this scan. Only brackets outside strings count; the text
 * need not be valid (the parser reports that). Undefined when the nesting is within the limit.
 */
export function nestingProblem(text: string, maxDepth: number): JsonLimitProblem | undefined {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames.at(-1);
      if (top && !top.array && top.expectKey) {
        top.key = decodeKey(text.slice(i, end + 1));
        top.expectKey = false;
      }
      i = end;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (frames.length >= maxDepth) {
        const path = frames.map((f) => (f.array ? String(f.index) : f.key));
        return limit(path, `is nested deeper than ${maxDepth} levels`, 'maxDepth');
      }
      frames.push({ array: code === OPEN_ARRAY, key: '', index: 0, expectKey: true });
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      frames.pop();
    } else if (code === COMMA) {
      const top = frames.at(-1);
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    }
  }
  return undefined;
}

/**
 * What is wrong with a parsed body: a string or key too long, an array or object too large, a
 * reserved key (`__proto__`, `constructor`, `prototype`) at any depth, or (when called without
 * {@link nestingProblem} first) nesting too deep. Undefined when the body is within the limits.
 */
export function jsonValueProblem(value: unknown, limits: Required<JsonLimits>): JsonLimitProblem | undefined {
  return walk(value, [], limits);
}

function walk(value: unknown, path: string[], limits: Required<JsonLimits>): JsonLimitProblem | undefined {
  if (typeof value === 'string') {
    return value.length > limits.maxStringLength
      ? limit(
          path,
          `is a string of ${value.length} characters, over the limit of ${limits.maxStringLength}`,
          'maxStringLength',
        )
      : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  // The nesting is usually checked on the text already; this keeps the walk bounded if it is not.
  if (path.length >= limits.maxDepth) return limit(path, `is nested deeper than ${limits.maxDepth} levels`, 'maxDepth');
  if (Array.isArray(value)) {
    if (value.length > limits.maxItems)
      return limit(path, `has ${value.length} elements, over the limit of ${limits.maxItems}`, 'maxItems');
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      const problem = walk(value[i], path, limits);
      if (problem) return problem;
      path.pop();
    }
    return undefined;
  }
  const keys = Object.keys(value);
  if (keys.length > limits.maxItems)
    return limit(path, `has ${keys.length} keys, over the limit of ${limits.maxItems}`, 'maxItems');
  for (const key of keys) {
    path.push(key);
    if (RESERVED_KEYS.has(key)) return { kind: 'reserved-key', field: fieldOf(path), key };
    if (key.length > limits.maxStringLength)
      return limit(
        path,
        `has a key of ${key.length} characters, over the limit of ${limits.maxStringLength}`,
        'maxStringLength',
      );
    const problem = walk((value as Record<string, unknown>)[key], path, limits);
    if (problem) return problem;
    path.pop();
  }
  return undefined;
}

function limit(path: readonly string[], what: string, option: keyof JsonLimits): JsonLimitProblem {
  return { kind: 'limit', field: fieldOf(path), what, option };
}

/** A field path as messages name fields: segments joined with dots, long keys cut. */
function fieldOf(path: readonly string[]): string {
  if (path.length === 0) return '(root)';
  return path.map((segment) => (segment.length > 64 ? `${segment.slice(0, 64)}...` : segment)).join('.');
}

/** The index of the quote that closes the string opening at `start` (or the text's end). */
function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === BACKSLASH) j++;
    else if (code === QUOTE) return j;
  }
  return text.length;
}

function decodeKey(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}
