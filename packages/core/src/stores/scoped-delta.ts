import { APP_PREFIX, TEMP_PREFIX, USER_PREFIX } from '../sessions/state-keys.js';

/** What one append does to one state scope: keys to write and keys to remove (`undefined` values). */
export interface ScopeChanges {
  set: Record<string, unknown>;
  removed: string[];
  /** True when there is anything to write or remove. */
  any: boolean;
}

/** A state delta split by where each key is stored; `temp:` keys are left out (never stored). */
export interface ScopedDelta {
  session: ScopeChanges;
  app: ScopeChanges;
  user: ScopeChanges;
}

/** Splits a validated delta into the session, `user:` and `app:` scopes. */
export function splitDelta(delta: Record<string, unknown>): ScopedDelta {
  let scoped: ScopedDelta | undefined;
  for (const key in delta) {
    if (key.startsWith(TEMP_PREFIX)) continue;
    // Most events change no state, and most deltas only session keys: scopes without changes share
    // one frozen empty record, made per scope only when a key of it comes up.
    scoped ??= { session: NO_SCOPE_CHANGES, app: NO_SCOPE_CHANGES, user: NO_SCOPE_CHANGES };
    const scope = key.startsWith(APP_PREFIX) ? 'app' : key.startsWith(USER_PREFIX) ? 'user' : 'session';
    let changes = scoped[scope];
    if (changes === NO_SCOPE_CHANGES) scoped[scope] = changes = emptyChanges();
    const value = delta[key];
    // JSON has no `undefined`: writing it removes the key (every store does the same).
    if (value === undefined) changes.removed.push(key);
    else changes.set[key] = value;
    changes.any = true;
  }
  return scoped ?? NO_CHANGES;
}

const NO_SCOPE_CHANGES: ScopeChanges = Object.freeze({
  set: Object.freeze({}),
  removed: Object.freeze([]) as unknown as string[],
  any: false,
});
const NO_CHANGES: ScopedDelta = Object.freeze({
  session: NO_SCOPE_CHANGES,
  app: NO_SCOPE_CHANGES,
  user: NO_SCOPE_CHANGES,
});

function emptyChanges(): ScopeChanges {
  return { set: {}, removed: [], any: false };
}
