import { type LeaseParams, type LeaseState, type SessionLease } from '@troupe/core/stores';
import {
  checkLeaseParams,
  checkLeaseTtl,
  missingLeaseSessionError,
  renewalLostError,
  toSessionLease,
} from '@troupe/core/stores';
import type { LeaseRow, Statements } from './statements.js';

// Session leases on the `sessions` row (lease_owner, lease_epoch, lease_expires_at). The argument
// checks, the lease handed out and the errors are core's shared lease rules; the decision stays here,
// in SQL: each change is one UPDATE that holds its condition in its WHERE clause (the rule of
// `canTakeLease`, renewal and release at the lease's epoch), atomic across connections and processes
// without a transaction around it. The clock is this process's; processes sharing a file share a
// machine, and so a clock.

/**
 * Takes the lease of a session for `params.owner` when it is free, expired or already theirs (the
 * epoch grows on every acquisition). Undefined when another owner holds an unexpired lease.
 */
export function takeLease(sql: Statements, params: LeaseParams, now: number): SessionLease | undefined {
  checkLeaseParams(params);
  const { appName, userId, sessionId, owner } = params;
  const row = sql.takeLease.get(owner, now + params.ttlMs, appName, userId, sessionId, now, owner);
  if (row) return toSessionLease(params, leaseState(row));
  // Refused: tell a missing session from one another owner holds (a read only on this path).
  if (!sql.selectLease.get(appName, userId, sessionId)) throw missingLeaseSessionError(params);
  return undefined;
}

/** Extends a lease still at its epoch to `ttlMs` from `now`; throws `LeaseLostError` when it was taken over. */
export function renewLease(sql: Statements, lease: SessionLease, ttlMs: number, now: number): SessionLease {
  checkLeaseTtl(ttlMs, 'renewLease');
  const row = sql.renewLease.get(now + ttlMs, lease.appName, lease.userId, lease.sessionId, lease.epoch);
  if (row) return toSessionLease(lease, leaseState(row));
  throw renewalLostError(lease, sql.selectLease.get(lease.appName, lease.userId, lease.sessionId)?.lease_epoch);
}

/** Frees a lease still at its epoch; a lease taken over since is left to its new owner. */
export function releaseLease(sql: Statements, lease: SessionLease): void {
  sql.releaseLease.run(lease.appName, lease.userId, lease.sessionId, lease.epoch);
}

function leaseState(row: LeaseRow): LeaseState {
  return { leaseOwner: row.lease_owner, leaseEpoch: row.lease_epoch, leaseExpiresAt: row.lease_expires_at };
}
