import { InvalidStateKeyError } from '../errors.js';
import { FORBIDDEN_KEYS, findForbiddenKey } from '../utils/forbidden-keys.js';

/** Shared by all sessions of an app. */
export const APP_PREFIX = 'app:';
/** Shared by all sessions of a user in an app. */
export const USER_PREFIX = 'user:';
/** Lives for one invocation only; never persisted. */
export const TEMP_PREFIX = 'temp:';

/** Throws for keys that could pollute prototypes or are empty. */
export function assertValidStateKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) {
    throw new InvalidStateKeyError(
      `State key ${JSON.stringify(key)} is not a non-empty string. Use a name such as 'topic' or 'user:name'.`,
    );
  }
  const bare = key.slice(key.indexOf(':') + 1);
  if (FORBIDDEN_KEYS.has(key) || FORBIDDEN_KEYS.has(bare)) {
    throw new InvalidStateKeyError(
      `State key '${key}' is not allowed: '__proto__', 'constructor' and 'prototype' could pollute object prototypes. Choose another key name.`,
    );
  }
}

/**
 * Throws when a state value holds `__proto__`, `constructor` or `prototype` as a key at any depth
 * of its objects and arrays, naming the path; merging such a value could pollute prototypes.
 */
export function assertValidStateValue(key: string, value: unknown): void {
  const found = findForbiddenKey(value, key);
  if (found) {
    throw new InvalidStateKeyError(
      `State key '${key}' holds the key '${found.key}' at ${found.path}: '__proto__', 'constructor' and 'prototype' are refused at any depth of state values, since merging them could pollute object prototypes. Rename that key.`,
    );
  }
}

/** Checks every key of a delta, and the keys inside its values at any depth. */
export function assertValidDelta(delta: Record<string, unknown>): void {
  for (const key in delta) {
    assertValidStateKey(key);
    assertValidStateValue(key, delta[key]);
  }
}

export function isTempKey(key: string): boolean {
  return key.startsWith(TEMP_PREFIX);
}

/** True when the delta has any `temp:` key (so it must be stripped before persisting). */
export function hasTempKeys(delta: Record<string, unknown>): boolean {
  for (const key in delta) if (key.startsWith(TEMP_PREFIX)) return true;
  return false;
}

/** The delta without `temp:` keys (the same object when it has none). */
export function withoutTempKeys(delta: Record<string, unknown>): Record<string, unknown> {
  if (!hasTempKeys(delta)) return delta;
  const out: Record<string, unknown> = {};
  for (const key in delta) if (!key.startsWith(TEMP_PREFIX)) out[key] = delta[key];
  return out;
}
