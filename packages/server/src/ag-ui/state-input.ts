import { TEMP_PREFIX } from '@troupe/core';

/**
 * The state an input writes: the keys of its `state` whose values differ from the session's (or
 * that the session lacks). AG-UI clients send their whole state with every run, mostly what the
 * previous run's state events left them; only what they changed is written, so an unchanged
 * `app:` key is not a write the state policy has to judge. A key missing from the input is left
 * as it is (a client that starts with `{}` must not wipe the thread's state).
 */
export function stateDeltaOf(
  inputState: unknown,
  sessionState: Readonly<Record<string, unknown>>,
): Record<string, unknown> | undefined {
  if (inputState === undefined || inputState === null) return undefined;
  const delta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(inputState as Record<string, unknown>)) {
    if (!Object.hasOwn(sessionState, key) || JSON.stringify(sessionState[key]) !== JSON.stringify(value))
      delta[key] = value;
  }
  return Object.keys(delta).length > 0 ? delta : undefined;
}

/** The state the client is shown: the session's, without `temp:` keys, as JSON would carry it. */
export function visibleState(state: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state))
    if (!key.startsWith(TEMP_PREFIX) && value !== undefined) visible[key] = jsonValue(value);
  return visible;
}

/** A value as the client receives it over JSON (a Date becomes its string, and so on). */
export function jsonValue(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}
