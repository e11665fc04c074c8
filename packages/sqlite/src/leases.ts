import { ConfigurationError, type SessionKey } from '@troupe/core';
import { type LeaseParams, type SessionLease } from '@troupe/core/stores';
import { leaseLostError, missingLeaseSessionError } from '@troupe/core/stores';
import type { LeaseRow, Statements } from './statements.js';

// Session leases on the `sessions` row (lease_owner, lease_epoch, lease_expires_at). Each change is
// one UPDATE that holds its condition in its WHERE clause: atomic across connections and processes
// without a transaction around it. The clock is this process's; processes sharing a file share a
// machine, and so a clock.

/**
 * Takes the lease of a session for `params.owner` when it is free, expired or already theirs (the
 * epoch grows on every acquisition). Undefined when another owner holds an unexpired lease.
 */
export function takeLease(sql: Statements, params: LeaseParams, now: number): SessionLease | undefined {
  checkOwner(params.owner);
  checkTtl(params.ttlMs, 'leaseSession');
  const { appName, userId, sessionId, owner } = params;
  const row = sql.takeLease.get(owner, now + params.ttlMs, appName, userId, sessionId, now, owner);
  if (row) return leaseOf(params, row);
  // Refused: tell a missing session from one another owner holds (a read only on this path).
  if (!sql.selectLease.get(appName, userId, sessionId)) throw missingLeaseSessionError(params);
  return undefined;
}

/** Extends a lease still at its epoch to `ttlMs` from `now`; throws `LeaseLostError` when it was taken over. */
export function renewLease(sql: Statements, lease: SessionLease, ttlMs: number, now: number): SessionLease {
  checkTtl(ttlMs, 'renewLease');
  const row = sql.renewLease.get(now + ttlMs, lease.appName, lease.userId, lease.sessionId, lease.epoch);
  if (row) return leaseOf(lease, row);
  throw leaseLostError(lease, sql.selectLease.get(lease.appName, lease.userId, lease.sessionId)?.lease_epoch);
}

/** Frees a lease still at its epoch; a lease taken over since is left to its new owner. */
export function releaseLease(sql: Statements, lease: SessionLease): void {
  sql.releaseLease.run(lease.appName, lease.userId, lease.sessionId, lease.epoch);
}

function leaseOf(key: SessionKey, row: LeaseRow): SessionLease {
  return {
    appName: key.appName,
    userId: key.userId,
    sessionId: key.sessionId,
    owner: row.lease_owner,
    epoch: row.lease_epoch,
    expiresAt: row.lease_expires_at,
  };
}

function checkOwner(owner: unknown): void {
  // '' is what the row holds when nobody ever leased the session.
  if (typeof owner !== 'string' || owner.length === 0) {
    throw new ConfigurationError(
      `leaseSession needs a non-empty owner string; got ${JSON.stringify(owner)}. Pass one unique per running invocation, e.g. '<host>:<pid>:<run id>'.`,
    );
  }
}

function checkTtl(ttlMs: unknown, method: string): void {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ConfigurationError(
      `${method} needs ttlMs, a number of milliseconds > 0; got ${String(ttlMs)}. The runner uses 30000.`,
    );
  }
}
