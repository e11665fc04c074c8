import type { WireEvent, WireSession } from '../types.js';
import { invocationStart } from './rewind.js';

/** Session state: key → value. */
export type StateMap = Record<string, unknown>;

/** The state around one event: before it was applied, and after its `stateDelta`. */
export interface StateStep {
  before: StateMap;
  after: StateMap;
}

/** One key that an event changed. */
export interface StateChange {
  key: string;
  kind: 'added' | 'changed' | 'removed';
  before?: unknown;
  after?: unknown;
}

/**
 * The state a stored session started from, as far as the wire tells: its current state without the
 * keys some event wrote (the values those keys had before their first write are not sent). Keys no
 * event touched, such as those given at creation or shared `app:`/`user:` keys, are kept.
 */
export function initialStateOf(session: WireSession): StateMap {
  const written = new Set<string>();
  for (const event of session.events ?? [])
    for (const key of Object.keys(event.actions.stateDelta ?? {})) written.add(key);
  const initial: StateMap = {};
  for (const [key, value] of Object.entries(session.state)) if (!written.has(key)) initial[key] = value;
  return initial;
}

/**
 * Replays each event's `stateDelta` on `initial`: the state before and after every event. A rewind
 * event takes this session's keys back to what they were before the invocation it rewound to
 * (`user:` and `app:` keys stay, as the runner leaves them): its stored delta cannot say which keys
 * it deleted, since JSON drops `undefined`.
 */
export function replayStates(initial: StateMap, events: readonly WireEvent[]): StateStep[] {
  const steps: StateStep[] = [];
  let current = initial;
  for (const [index, event] of events.entries()) {
    const delta = event.actions.stateDelta ?? {};
    const before = current;
    const target = event.actions.rewindBeforeInvocationId;
    const start = target === undefined ? -1 : invocationStart(events, target, index);
    if (start >= 0) {
      const restored: StateMap = {};
      for (const [key, value] of Object.entries(steps[start]!.before)) if (!isShared(key)) restored[key] = value;
      for (const [key, value] of Object.entries(current)) if (isShared(key)) restored[key] = value;
      current = restored;
    }
    if (Object.keys(delta).length > 0) {
      current = { ...current };
      for (const [key, value] of Object.entries(delta)) {
        // A delta value of undefined deletes the key in process; JSON drops it, so only null arrives.
        if (value === undefined) delete current[key];
        else current[key] = value;
      }
    }
    steps.push({ before, after: current });
  }
  return steps;
}

/** `user:` and `app:` keys belong to more than this session; a rewind leaves them. */
function isShared(key: string): boolean {
  return key.startsWith('user:') || key.startsWith('app:');
}

/** The keys whose values differ between two states, sorted by key. */
export function diffState(before: StateMap, after: StateMap): StateChange[] {
  const changes: StateChange[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const key of keys) {
    const had = Object.hasOwn(before, key);
    const has = Object.hasOwn(after, key);
    if (had && !has) changes.push({ key, kind: 'removed', before: before[key] });
    else if (!had && has) changes.push({ key, kind: 'added', after: after[key] });
    else if (!sameValue(before[key], after[key]))
      changes.push({ key, kind: 'changed', before: before[key], after: after[key] });
  }
  return changes;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
