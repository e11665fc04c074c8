import { ConfigurationError, type LeaseLostError } from '../errors.js';
import type { LeaseParams, SessionLease } from '../sessions/session-lease.js';
import type { SessionKey } from '../sessions/session.js';
import { leaseLostError, missingLeaseSessionError } from './store-errors.js';

/**
 * A session's lease as a store keeps it beside the session (the SQL stores as the columns
 * `lease_owner`, `lease_epoch`, `lease_expires_at`). A session never leased holds {@link NO_LEASE}.
 */
export interface LeaseState {
  /** Who holds it ('' when nobody ever did, or since a release in a store that plans with {@link planLeaseRelease}). */
  leaseOwner: string;
  /** Counts acquisitions: 0 when never leased, +1 each time it is taken. An append's `AppendHead.leaseEpoch`. */
  leaseEpoch: number;
  /** Milliseconds since the epoch on the store's clock; at or before `now` the lease is free (released or expired). */
  leaseExpiresAt: number;
}

/** The lease of a session nobody ever leased: what a store writes when it creates a session. */
export const NO_LEASE: Readonly<LeaseState> = Object.freeze({ leaseOwner: '', leaseEpoch: 0, leaseExpiresAt: 0 });

/**
 * Checks what `leaseSession` was given: `owner` a non-empty string ('' is what a never-leased
 * session holds, so it would count as "already ours"), `ttlMs` a positive number. Throws
 * `ConfigurationError` naming the value. Call it before touching the store.
 */
export function checkLeaseParams(params: LeaseParams): void {
  const owner: unknown = params.owner;
  if (typeof owner !== 'string' || owner.length === 0) {
    throw new ConfigurationError(
      `leaseSession needs 'owner' as a non-empty string; got ${owner === undefined ? 'undefined' : JSON.stringify(owner)}. Pass one unique per running invocation, e.g. '<host>:<pid>:<run id>'.`,
    );
  }
  checkLeaseTtl(params.ttlMs, 'leaseSession');
}

/**
 * Checks the `ttlMs` of `leaseSession` or `renewLease` (`call` names which) and returns it:
 * a finite number of milliseconds above 0, else `ConfigurationError` naming the value.
 */
export function checkLeaseTtl(ttlMs: number, call: 'leaseSession' | 'renewLease'): number {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ConfigurationError(
      `${call} needs 'ttlMs' as a positive number of milliseconds; got ${typeof ttlMs === 'string' ? JSON.stringify(ttlMs) : String(ttlMs)}. Pass e.g. 30000, the runner's default.`,
    );
  }
  return ttlMs;
}

/**
 * Whether `owner` may take a lease in `state` at `now`: it is free (never taken, released or
 * expired) or `owner` holds it already. A store that decides in its database writes this as the
 * condition of one conditional write (the SQL stores: `WHERE lease_expires_at <= now OR
 * lease_owner = owner`), so two processes racing cannot both take it.
 */
export function canTakeLease(state: LeaseState, owner: string, now: number): boolean {
  return state.leaseExpiresAt <= now || state.leaseOwner === owner;
}

/**
 * The lease a store hands out, built from what it stored for the session `key` (a row, or the new
 * {@link LeaseState} a plan returned). A fresh object carrying only the lease's fields.
 */
export function toSessionLease(key: SessionKey, state: LeaseState): SessionLease {
  return {
    appName: key.appName,
    userId: key.userId,
    sessionId: key.sessionId,
    owner: state.leaseOwner,
    epoch: state.leaseEpoch,
    expiresAt: state.leaseExpiresAt,
  };
}

/**
 * `leaseSession` for a store that reads and writes a session's lease in one step no other writer
 * can enter (one process's memory, a file rewritten synchronously): checks `params`
 * ({@link checkLeaseParams}), throws `SessionNotFoundError` when `current` is undefined (no such
 * session), and returns the lease state to store (taken for `params.owner` with epoch + 1 and
 * `ttlMs` from `now`) or undefined when another owner holds an unexpired lease. Hand out
 * {@link toSessionLease} of what it returns. Stores shared by processes decide in their database
 * instead (see {@link canTakeLease}).
 *
 * @example
 * const next = planLeaseTake(stored, params, Date.now()); // stored: the session, undefined if missing
 * if (!next) return undefined;
 * Object.assign(stored, next);
 * return toSessionLease(params, next);
 */
export function planLeaseTake(
  current: LeaseState | undefined,
  params: LeaseParams,
  now: number,
): LeaseState | undefined {
  checkLeaseParams(params);
  if (!current) throw missingLeaseSessionError(params);
  if (!canTakeLease(current, params.owner, now)) return undefined;
  return { leaseOwner: params.owner, leaseEpoch: current.leaseEpoch + 1, leaseExpiresAt: now + params.ttlMs };
}

/**
 * `renewLease` in the same kind of store as {@link planLeaseTake}: the lease state to store, the
 * lease still at its epoch with `ttlMs` from `now` (an expired lease nobody took renews).
 * Throws `ConfigurationError` for a bad `ttlMs`, `LeaseLostError` when the session moved to another
 * epoch or is gone.
 */
export function planLeaseRenewal(
  current: LeaseState | undefined,
  lease: SessionLease,
  ttlMs: number,
  now: number,
): LeaseState {
  checkLeaseTtl(ttlMs, 'renewLease');
  if (current?.leaseEpoch !== lease.epoch) throw leaseLostError(lease, current?.leaseEpoch);
  return { leaseOwner: lease.owner, leaseEpoch: lease.epoch, leaseExpiresAt: now + ttlMs };
}

/**
 * `releaseLease` in the same kind of store as {@link planLeaseTake}: the freed lease state to store,
 * or undefined (store nothing) when the session is gone or its lease was taken over since, so a
 * late release never frees the new owner. The owner is dropped ('', as never leased; the epoch
 * stays): a free lease needs no owner, and an idle session then keeps no owner string alive.
 */
export function planLeaseRelease(current: LeaseState | undefined, lease: SessionLease): LeaseState | undefined {
  if (current?.leaseEpoch !== lease.epoch) return undefined;
  return { leaseOwner: '', leaseEpoch: current.leaseEpoch, leaseExpiresAt: 0 };
}

/**
 * The `LeaseLostError` of a renewal a store's conditional write refused, naming the epoch it read
 * afterwards when that is news: a read that still saw the lease's own epoch (it ran before a
 * takeover committed) or no session says only that the lease is no longer held.
 */
export function renewalLostError(lease: SessionLease, seenEpoch: number | null | undefined): LeaseLostError {
  return leaseLostError(lease, seenEpoch === null || seenEpoch === lease.epoch ? undefined : seenEpoch);
}
