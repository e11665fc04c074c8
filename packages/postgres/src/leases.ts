import { type LeaseParams, type SessionLease } from '@troupe/core/stores';
import {
  checkLeaseParams,
  checkLeaseTtl,
  missingLeaseSessionError,
  renewalLostError,
  toSessionLease,
} from '@troupe/core/stores';
import { queryNamer, run, runCount, scopedStateColumns, type Db, type SessionRow } from './queries.js';

/** A session row read with its lease: its events after the version asked for, as [format, data]. */
export type LeasedSessionRow = SessionRow & { events: [number, unknown][] };
import { quoteIdentifier } from './schema.js';

/**
 * Session leases in PostgreSQL. The lease lives on the session's row (`lease_owner`, `lease_epoch`,
 * `lease_expires_at`), so taking one is a single conditional UPDATE: two processes racing for a
 * session queue on the row lock and the second re-checks the condition against the first one's
 * write. Expiry is computed and compared on the database's clock (`clock_timestamp()`, the moment
 * the row is written, not when a waiting statement began), so machines whose clocks disagree still
 * agree on who holds a lease. Appends check the epoch in their own transaction (see `lockSession`).
 * The argument checks, the lease handed out and the errors are core's shared lease rules; the
 * decision stays in each statement's WHERE clause (the rule of `canTakeLease`; renewal and release
 * at the lease's epoch), so it is made where the row lock is held.
 */
export class Leases {
  private readonly sql: ReturnType<typeof buildLeaseQueries>;

  constructor(schema: string) {
    this.sql = buildLeaseQueries(schema);
  }

  /** Takes the lease (see `LeasingSessionService.leaseSession`). */
  async take(db: Db, params: LeaseParams): Promise<SessionLease | undefined> {
    checkLeaseParams(params);
    const [row] = await run<TakeRow>(db, this.sql.take, [
      params.appName,
      params.userId,
      params.sessionId,
      params.owner,
      params.ttlMs,
    ]);
    return leaseTaken(params, row);
  }

  /**
   * Takes the lease and reads the session in the same statement; the row is undefined when the
   * lease is held by another owner.
   */
  async takeAndRead(
    db: Db,
    params: LeaseParams,
    afterVersion: number,
  ): Promise<{ lease: SessionLease; row: LeasedSessionRow } | undefined> {
    checkLeaseParams(params);
    const [row] = await run<LeasedSessionRow & TakeRow>(db, this.sql.takeAndRead, [
      params.appName,
      params.userId,
      params.sessionId,
      params.owner,
      params.ttlMs,
      afterVersion,
    ]);
    const lease = leaseTaken(params, row);
    return lease && { lease, row: row! };
  }

  /** Extends a lease still at its epoch; throws `LeaseLostError` otherwise. */
  async renew(db: Db, lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    const ttl = checkLeaseTtl(ttlMs, 'renewLease');
    const [row] = await run<{ current: number | null; expires_at: number | null }>(db, this.sql.renew, [
      lease.appName,
      lease.userId,
      lease.sessionId,
      lease.epoch,
      ttl,
    ]);
    // `current` may be read from before a takeover that committed while we waited; renewalLostError
    // names it only when it is a new epoch.
    if (!row || row.expires_at === null) throw renewalLostError(lease, row?.current);
    return toSessionLease(lease, { leaseOwner: lease.owner, leaseEpoch: lease.epoch, leaseExpiresAt: row.expires_at });
  }

  /** Frees a lease still at its epoch; a lease taken over since is left to its new owner. */
  async release(db: Db, lease: SessionLease): Promise<void> {
    await runCount(db, this.sql.release, [lease.appName, lease.userId, lease.sessionId, lease.epoch]);
  }
}

/** What a take reads: whether the session exists, and the lease when it was taken. */
interface TakeRow {
  found: boolean;
  epoch: number | null;
  expires_at: number | null;
}

/** The lease a take got; undefined when another owner holds it. Throws for a missing session. */
function leaseTaken(params: LeaseParams, row: TakeRow | undefined): SessionLease | undefined {
  if (!row?.found) throw missingLeaseSessionError(params);
  if (row.epoch === null || row.expires_at === null) return undefined;
  return toSessionLease(params, { leaseOwner: params.owner, leaseEpoch: row.epoch, leaseExpiresAt: row.expires_at });
}

function buildLeaseQueries(schema: string) {
  const s = quoteIdentifier(schema);
  const query = queryNamer(schema);
  const key = 'app_name = $1 AND user_id = $2 AND id = $3';
  const expiresAtMs = '(extract(epoch FROM lease_expires_at) * 1000)::float8';
  // $4 owner, $5 ttl in ms. Taken when free or expired, or again by its owner (with a new epoch, as
  // every acquisition gets one); the statement returns the lease and the columns `also` of the row taken.
  const takeLease = (also = '') => `UPDATE ${s}.sessions SET lease_owner = $4, lease_epoch = lease_epoch + 1,
           lease_expires_at = clock_timestamp() + $5::float8 * interval '1 millisecond'
         WHERE ${key} AND (lease_expires_at <= clock_timestamp() OR lease_owner = $4)
         RETURNING ${also}lease_epoch, ${expiresAtMs} AS expires_at`;
  // `found` tells a held lease from a missing session in the same trip.
  const found = `EXISTS (SELECT 1 FROM ${s}.sessions WHERE ${key}) AS found, taken.lease_epoch AS epoch, taken.expires_at`;
  return {
    take: query(
      'lease_take',
      `WITH taken AS (${takeLease()})
       SELECT ${found} FROM (VALUES (1)) AS one (x) LEFT JOIN taken ON true`,
    ),
    // The same, and the session as the lease left it: its row, app and user state, and the events
    // after version $6 (0: all) with the id of the last one at or before it. The events are read in
    // the statement's snapshot, which may predate a write the UPDATE waited for: the caller checks
    // that they are one per version and reads again otherwise.
    takeAndRead: query(
      'lease_take_read',
      `WITH taken AS (${takeLease('pk, id, state_format, state, version, last_update_time, ')})
       SELECT ${found},
         taken.pk, taken.id, taken.state_format, taken.state, taken.version, taken.last_update_time, ${scopedStateColumns(s)},
         (SELECT COALESCE(jsonb_agg(jsonb_build_array(e.format, e.data) ORDER BY e.seq), '[]'::jsonb)
            FROM ${s}.events e WHERE e.session_pk = taken.pk AND e.seq > $6) AS events,
         (SELECT e.id FROM ${s}.events e WHERE e.session_pk = taken.pk AND e.seq <= $6 ORDER BY e.seq DESC LIMIT 1) AS base_event_id
       FROM (VALUES (1)) AS one (x) LEFT JOIN taken ON true`,
    ),
    // $4 epoch, $5 ttl in ms. An expired lease nobody took is still at its epoch, so it renews.
    renew: query(
      'lease_renew',
      `WITH renewed AS (
         UPDATE ${s}.sessions SET lease_expires_at = clock_timestamp() + $5::float8 * interval '1 millisecond'
         WHERE ${key} AND lease_epoch = $4
         RETURNING ${expiresAtMs} AS expires_at)
       SELECT (SELECT lease_epoch FROM ${s}.sessions WHERE ${key}) AS current, renewed.expires_at
       FROM (VALUES (1)) AS one (x) LEFT JOIN renewed ON true`,
    ),
    // $4 epoch.
    release: query(
      'lease_release',
      `UPDATE ${s}.sessions SET lease_expires_at = '-infinity' WHERE ${key} AND lease_epoch = $4`,
    ),
  };
}
