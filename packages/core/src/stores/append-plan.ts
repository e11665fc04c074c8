import type { Event } from '../events/event.js';
import type { AppendEventParams } from '../sessions/session.js';
import { assertValidDelta, withoutTempKeys } from '../sessions/state-keys.js';
import { updateLiveSession } from './live-session.js';
import { splitDelta, type ScopedDelta } from './scoped-delta.js';
import { leaseLostError, missingSessionError, staleSessionError } from './store-errors.js';

/** What a store reads of a session before an append, inside the transaction that stores it. */
export interface AppendHead {
  /** The stored version: the number of events appended so far. */
  version: number;
  /** The session's lease epoch (0 when never leased). */
  leaseEpoch: number;
  /** The stored `lastUpdateTime`. */
  lastUpdateTime: number;
}

/** The event was stored before (same id): the store writes nothing and returns this, as stored. */
export interface AppendDuplicate {
  kind: 'duplicate';
  stored: Event;
}

/** The event is new: what the store writes, in the same transaction, before it commits. */
export interface AppendWrite {
  kind: 'write';
  /** The event to store and return: `temp:` keys dropped from its delta (the same object when it had none). */
  persisted: Event;
  /** The stored delta split by scope (session, `user:`, `app:`), for the store's state writes. */
  readonly scoped: ScopedDelta;
  /** The session's version after this append (the head's + 1); the event's own version. */
  version: number;
  /** The session's `lastUpdateTime` after this append. */
  lastUpdateTime: number;
}

/** What {@link planAppend} decided. */
export type AppendPlan = AppendDuplicate | AppendWrite;

/**
 * The decisions of `SessionService.appendEvent` that every store makes the same way, in this order,
 * called inside the store's write transaction once it has read the session's head:
 * 1. no head → `SessionNotFoundError`;
 * 2. a lease whose epoch is not the stored one → `LeaseLostError` (nothing stored);
 * 3. an event whose id is stored (a retried append) → that stored event, nothing written;
 * 4. a session copy at another version than the stored one → `StaleSessionError`;
 * 5. the delta's keys and values checked (`InvalidStateKeyError`), `temp:` keys dropped, the rest
 *    split by scope, the next version and `lastUpdateTime` computed.
 *
 * `findStored` looks an event id up in the session's stored events: synchronous for a store whose
 * transactions are (SQLite, memory), and then so is the plan; a promise for an asynchronous store.
 * Partial events are never stored: check `event.partial` before opening the transaction. After the
 * commit, {@link finishAppend} brings the caller's live session up to date.
 *
 * @example
 * // inside the store's transaction
 * const head = readHead(session); // undefined when the session is not stored
 * const plan = planAppend({ session, event, lease }, head, (id) => readEvent(session, id));
 * if (plan.kind === 'write') writeEvent(session, plan.persisted, plan.scoped, plan.version, plan.lastUpdateTime);
 * // after the commit
 * return finishAppend({ session, event }, plan);
 */
export function planAppend(
  params: AppendEventParams,
  head: AppendHead | undefined,
  findStored: (eventId: string) => Event | undefined,
): AppendPlan;
export function planAppend(
  params: AppendEventParams,
  head: AppendHead | undefined,
  findStored: (eventId: string) => Promise<Event | undefined>,
): Promise<AppendPlan>;
export function planAppend(
  params: AppendEventParams,
  head: AppendHead | undefined,
  findStored: (eventId: string) => Event | undefined | Promise<Event | undefined>,
): AppendPlan | Promise<AppendPlan> {
  const known = checkAppendHead(params, head);
  const found = findStored(params.event.id);
  if (found instanceof Promise) return found.then((stored) => planAfterLookup(params, known, stored));
  return planAfterLookup(params, known, found);
}

/**
 * Steps 1 and 2 of {@link planAppend}: the head, checked. For a store that looks the event up
 * itself at once (the in-memory one), which then calls {@link planAfterLookup}: no callback to make.
 * @internal
 */
export function checkAppendHead<H extends AppendHead>({ session, lease }: AppendEventParams, head: H | undefined): H {
  if (!head) throw missingSessionError(session);
  if (lease && lease.epoch !== head.leaseEpoch) throw leaseLostError(lease, head.leaseEpoch);
  return head;
}

/** Steps 3 to 5 of {@link planAppend}, once the store has looked the event's id up. @internal */
export function planAfterLookup(
  { session, event }: AppendEventParams,
  head: AppendHead,
  stored: Event | undefined,
): AppendPlan {
  if (stored) return { kind: 'duplicate', stored };
  if (session.version !== head.version) throw staleSessionError(session, head.version);
  const delta = event.actions.stateDelta;
  assertValidDelta(delta);
  // temp: keys apply to the live session of this invocation (finishAppend) but are never stored.
  const persistedDelta = withoutTempKeys(delta);
  const persisted =
    persistedDelta === delta ? event : { ...event, actions: { ...event.actions, stateDelta: persistedDelta } };
  return new Write(persisted, persistedDelta, head.version + 1, Math.max(event.timestamp, head.lastUpdateTime));
}

/** An {@link AppendWrite} whose delta is split on first read: a store that keeps events whole never asks. */
class Write implements AppendWrite {
  readonly kind = 'write';
  private split: ScopedDelta | undefined;

  constructor(
    readonly persisted: Event,
    private readonly delta: Record<string, unknown>,
    readonly version: number,
    readonly lastUpdateTime: number,
  ) {}

  get scoped(): ScopedDelta {
    return (this.split ??= splitDelta(this.delta));
  }
}

/**
 * After the append's transaction committed: what `appendEvent` returns. A duplicate returns the
 * stored event; a write updates the caller's live session (its state with the whole delta, `temp:`
 * keys included, its events, version and `lastUpdateTime`) and returns the persisted event.
 */
export function finishAppend({ session, event }: AppendEventParams, plan: AppendPlan): Event {
  if (plan.kind === 'duplicate') return plan.stored;
  updateLiveSession(session, event.actions.stateDelta, plan.persisted, plan.version, plan.lastUpdateTime);
  return plan.persisted;
}
