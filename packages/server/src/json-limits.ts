import { HttpError } from './http-error.js';

/**
 * The shape a JSON request body may have, checked on every route before the body is validated or
 * used, so that a body the rest of the server (zod, the stores, `JSON.stringify`) would choke on is
 * a 400 naming the field, never a 500 or a run that fails later.
 */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays; the body itself is level 1. @default 64 */
  maxDepth?: number;
  /** Longest string value or object key, in UTF-16 code units. @default 1_048_576 (the default `bodyLimit`) */
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

/**
 * Keys refused at any depth of a body: copied into a plain object, `__proto__` would change its
 * prototype instead of adding a key, and `constructor`/`prototype` are refused as state keys by core.
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
 * Refuses JSON text nested deeper than `maxDepth`, before it is parsed: parsing a megabyte of `[`
 * costs far more than this scan. Only brackets outside strings count; the text need not be valid
 * (the parser reports that). The error names the field path where the limit is passed.
 */
export function checkNesting(text: string, maxDepth: number): void {
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
        throw limitExceeded(
          frames.map((f) => (f.array ? String(f.index) : f.key)),
          `is nested deeper than ${maxDepth} levels`,
          'maxDepth',
        );
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
}

/**
 * Checks a parsed body: string and key lengths, array and object sizes, and no reserved key
 * (`__proto__`, `constructor`, `prototype`) at any depth. Errors name the field path.
 */
export function checkJsonValue(value: unknown, limits: Required<JsonLimits>): void {
  walk(value, [], limits);
}

function walk(value: unknown, path: string[], limits: Required<JsonLimits>): void {
  if (typeof value === 'string') {
    if (value.length > limits.maxStringLength)
      throw limitExceeded(
        path,
        `is a string of ${value.length} characters, over the limit of ${limits.maxStringLength}`,
        'maxStringLength',
      );
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  // The nesting was checked on the text already; this keeps the walk bounded if it is called alone.
  if (path.length >= limits.maxDepth)
    throw limitExceeded(path, `is nested deeper than ${limits.maxDepth} levels`, 'maxDepth');
  if (Array.isArray(value)) {
    if (value.length > limits.maxItems)
      throw limitExceeded(path, `has ${value.length} elements, over the limit of ${limits.maxItems}`, 'maxItems');
    for (let i = 0; i < value.length; i++) {
      path.push(String(i));
      walk(value[i], path, limits);
      path.pop();
    }
    return;
  }
  const keys = Object.keys(value);
  if (keys.length > limits.maxItems)
    throw limitExceeded(path, `has ${keys.length} keys, over the limit of ${limits.maxItems}`, 'maxItems');
  for (const key of keys) {
    path.push(key);
    if (RESERVED_KEYS.has(key)) {
      const field = fieldOf(path);
      throw new HttpError(
        400,
        'RESERVED_KEY',
        `Invalid request body: field '${field}': the key '${key}' is reserved (it could change object prototypes); rename it.`,
        field,
      );
    }
    if (key.length > limits.maxStringLength)
      throw limitExceeded(
        path,
        `has a key of ${key.length} characters, over the limit of ${limits.maxStringLength}`,
        'maxStringLength',
      );
    walk((value as Record<string, unknown>)[key], path, limits);
    path.pop();
  }
}

function limitExceeded(path: readonly string[], what: string, option: keyof JsonLimits): HttpError {
  const field = fieldOf(path);
  return new HttpError(
    400,
    'LIMIT_EXCEEDED',
    `Invalid request body: field '${field}' ${what}. Send less, or raise createApp's jsonLimits.${option}.`,
    field,
  );
}

/** A field path as the other 400s name fields: segments joined with dots, long keys cut. */
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
