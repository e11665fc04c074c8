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
  const scoped: ScopedDelta = { session: emptyChanges(), app: emptyChanges(), user: emptyChanges() };
  for (const key in delta) {
    if (key.startsWith(TEMP_PREFIX)) continue;
    const changes = key.startsWith(APP_PREFIX)
      ? scoped.app
      : key.startsWith(USER_PREFIX)
        ? scoped.user
        : scoped.session;
    const value = delta[key];
    // JSON has no `undefined`: writing it removes the key (every store does the same).
    if (value === undefined) changes.removed.push(key);
    else changes.set[key] = value;
    changes.any = true;
  }
  return scoped;
}

function emptyChanges(): ScopeChanges {
  return { set: {}, removed: [], any: false };
}
