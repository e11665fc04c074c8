import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import {
  ConfigurationError,
  type AppendEventParams,
  type CreateSessionParams,
  type Event,
  type GetSessionParams,
  type Session,
  type SessionKey,
} from '@troupe/core';
import {
  type CreateRunParams,
  type LeaseParams,
  type LeaseTaken,
  type LeasingSessionService,
  type RunCondition,
  type RunFilter,
  type RunRecord,
  type RunRecordStore,
  type RunUpdate,
  type SessionLease,
} from '@troupe/core/stores';
import {
  assertValidDelta,
  checkAfterVersion,
  finishAppend,
  planAppend,
  sessionExistsError,
  splitDelta,
  staleSessionError,
  type AppendPlan,
  type ScopeChanges,
  type ScopedDelta,
} from '@troupe/core/stores';
import {
  PLAIN_FORMAT,
  VALUE_FORMAT,
  decodeKey,
  decodeValue,
  encodeKey,
  encodeValue,
  type EncodedValue,
} from './codec.js';
import { Leases } from './leases.js';
import { resolveOptions, type PostgresSessionServiceOptions } from './options.js';
import { MAYBE_DONE, asStorageError, probe, servicePool } from './pool.js';
import { Runs } from './runs.js';
import {
  buildQueries,
  run,
  runCount,
  type Queries,
  type ScopedRows,
  type SessionHeadRow,
  type SessionRow,
  type ValueRow,
} from './queries.js';
import { isCurrent, migrate } from './schema.js';
import { inTransaction } from './transaction.js';

export type { PostgresSessionServiceOptions } from './options.js';

// Repeating a compare-and-set that did take effect finds the run changed and returns undefined.
const APPEND_MAYBE_DONE =
  'Appending it again is safe: an event whose id is stored is not stored twice (reload the session first, its version may have moved).';
const UPDATE_MAYBE_DONE =
  'It may or may not have taken effect; read the run back with getRun before repeating the update.';

/**
 * Sessions kept in PostgreSQL, for services that run several processes or machines. Tables live in
 * their own schema and are created or migrated forward on first use, under an advisory lock so
 * processes starting together migrate once; a schema written by a newer release fails with
 * `SchemaVersionError`. Every append is one transaction that locks the session row and checks
 * its `version` (and the writer's lease), so a writer holding an outdated copy gets
 * `StaleSessionError` and nothing is interleaved. Events and state are JSONB, each value with a
 * format number so the encoding can evolve. Sessions can be leased (`LeasingSessionService`), on the
 * database's clock. It keeps the run records of background runs (`RunRecordStore`) in the `runs`
 * table; deleting a session deletes its runs.
 *
 * A lost connection (a restart, a failover) fails only the call in flight, with `StorageError`
 * (nothing half-stored); the next call opens a new connection.
 *
 * @example
 * import { Runner } from '@troupe/core';
 * import { PostgresSessionService } from '@troupe/postgres';
 *
 * const sessionService = new PostgresSessionService({ connectionString: process.env.DATABASE_URL });
 * const runner = new Runner({ appName: 'travel', agent, sessionService });
 * const session = await sessionService.createSession({ appName: 'travel', userId: 'u1' });
 * await runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'Book a flight to Paris' });
 * await sessionService.close();
 */
export class PostgresSessionService implements LeasingSessionService, RunRecordStore {
  /** The schema holding the tables. */
  readonly schema: string;
  private readonly pool: pg.Pool;
  private readonly releasePool: () => Promise<void>;
  private readonly healthTimeoutMs: number;
  private readonly sql: Queries;
  private readonly leases: Leases;
  private readonly runs: Runs;
  private ready: Promise<void> | undefined;
  private migrated = false;
  private closed = false;

  constructor(options: PostgresSessionServiceOptions) {
    const resolved = resolveOptions(options);
    this.schema = resolved.schema;
    this.healthTimeoutMs = resolved.healthTimeoutMs;
    this.sql = buildQueries(resolved.schema);
    this.leases = new Leases(resolved.schema);
    this.runs = new Runs(resolved.schema);
    ({ pool: this.pool, release: this.releasePool } = servicePool(resolved));
  }

  async createSession(params: CreateSessionParams): Promise<Session> {
    const sessionId = params.sessionId ?? randomUUID();
    const initial = params.state ?? {};
    assertValidDelta(initial);
    const scoped = splitDelta(initial);
    const state = encodeValue(scoped.session.set, () => `The initial state of session '${sessionId}'`);
    await this.ensureReady();
    if (!scoped.app.any && !scoped.user.any) return this.createPlainSession(params, sessionId, state);
    return inTransaction(
      this.pool,
      async (client) => {
        const now = Date.now();
        const inserted = await run<{ pk: string }>(client, this.sql.insertSession, [
          params.appName,
          params.userId,
          sessionId,
          state.format,
          state.text,
          now,
        ]);
        if (inserted.length === 0) {
          throw sessionExistsError(params.appName, params.userId, sessionId);
        }
        await this.writeScoped(client, params.appName, params.userId, scoped, `session '${sessionId}'`);
        const [scopedRows] = await run<{ app: ScopedRows; usr: ScopedRows }>(client, this.sql.selectScoped, [
          params.appName,
          params.userId,
        ]);
        const row: SessionRow = {
          pk: inserted[0]!.pk,
          id: sessionId,
          state_format: state.format,
          // A copy, as if read back: the caller's objects never end up inside the returned session.
          state: JSON.parse(state.text) as Record<string, unknown>,
          version: 0,
          last_update_time: now,
          app: scopedRows?.app ?? [],
          usr: scopedRows?.usr ?? [],
        };
        return toSession(params.appName, params.userId, row, []);
      },
      {
        action: `creating session '${sessionId}'`,
        ifCommitLost: 'Read it back with getSession before creating it again.',
      },
    );
  }

  /** The usual create (no app: or user: keys to write): one statement instead of a transaction of four. */
  private async createPlainSession(
    params: CreateSessionParams,
    sessionId: string,
    state: ReturnType<typeof encodeValue>,
  ): Promise<Session> {
    const now = Date.now();
    const [created] = await this.guard(
      `creating session '${sessionId}'`,
      () =>
        run<{ pk: string; app: ScopedRows; usr: ScopedRows }>(this.pool, this.sql.createSession, [
          params.appName,
          params.userId,
          sessionId,
          state.format,
          state.text,
          now,
        ]),
      'It may or may not have been created: read it back with getSession before creating it again.',
    );
    if (!created) throw sessionExistsError(params.appName, params.userId, sessionId);
    const row: SessionRow = {
      pk: created.pk,
      id: sessionId,
      state_format: state.format,
      // A copy, as if read back: the caller's objects never end up inside the returned session.
      state: JSON.parse(state.text) as Record<string, unknown>,
      version: 0,
      last_update_time: now,
      app: created.app,
      usr: created.usr,
    };
    return toSession(params.appName, params.userId, row, []);
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    const after = checkAfterVersion(params);
    await this.ensureReady();
    return this.guard(`reading session '${params.sessionId}'`, async () => {
      const limit = params.numRecentEvents;
      const values = [
        params.appName,
        params.userId,
        params.sessionId,
        after ?? 0,
        params.afterTimestamp ?? -Infinity,
        limit === undefined ? null : Math.max(0, Math.floor(limit)),
      ];
      const [row] = await run<SessionRow & { events: [number, unknown][] }>(
        this.pool,
        after === undefined ? this.sql.selectSession : this.sql.selectSessionAfter,
        values,
      );
      if (!row) return undefined;
      const events = decodeEvents(row.events, row.id);
      const session = toSession(params.appName, params.userId, row, events);
      if (after !== undefined) session.increment = { afterVersion: after, baseEventId: row.base_event_id ?? undefined };
      return session;
    });
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    await this.ensureReady();
    return this.guard(`listing the sessions of user '${params.userId}'`, async () => {
      const rows = await run<SessionRow>(this.pool, this.sql.listSessions, [params.appName, params.userId]);
      return { sessions: rows.map((row) => toSession(params.appName, params.userId, row, [])) };
    });
  }

  async deleteSession(params: SessionKey): Promise<void> {
    await this.ensureReady();
    // Its events and runs go with it (ON DELETE CASCADE).
    await this.guard(
      `deleting session '${params.sessionId}'`,
      () => run(this.pool, this.sql.deleteSession, [params.appName, params.userId, params.sessionId]),
      MAYBE_DONE,
    );
  }

  async appendEvent(params: AppendEventParams): Promise<Event> {
    const { session, event } = params;
    if (event.partial) return event;
    await this.ensureReady();
    const action = `appending event '${event.id}' to session '${session.id}'`;
    const plan =
      (await this.appendDirect(params, action)) ??
      (await inTransaction(this.pool, (client) => this.appendInTransaction(client, params), {
        action,
        ifCommitLost: APPEND_MAYBE_DONE,
      }));
    // The live session changes only after the commit.
    return finishAppend(params, plan);
  }

  /**
   * The usual append in one statement (one round trip instead of BEGIN, a locked read, a write and
   * COMMIT): planned as if the stored session were the caller's copy, and written only if it is
   * (same version, same lease epoch, no event of that id yet). Undefined when it wrote nothing, or
   * the append is not the usual one (app: or user: state, a plan that fails): the locked transaction
   * then does it, or says exactly why not.
   */
  private async appendDirect(params: AppendEventParams, action: string): Promise<AppendPlan | undefined> {
    const { session, event, lease } = params;
    let plan: AppendPlan;
    let data: ReturnType<typeof encodeValue>;
    let changes: ReturnType<typeof encodeChanges>;
    try {
      plan = planAppend(
        params,
        { version: session.version, leaseEpoch: lease?.epoch ?? 0, lastUpdateTime: session.lastUpdateTime },
        () => undefined,
      );
      if (plan.kind !== 'write' || plan.scoped.app.any || plan.scoped.user.any) return undefined;
      data = encodeValue(plan.persisted, () => `Event '${event.id}' of session '${session.id}'`);
      changes = encodeChanges(plan.scoped.session, () => `The state delta of event '${event.id}'`);
    } catch {
      // The locked path reports it, after the checks that come first (a missing session, a lost lease).
      return undefined;
    }
    const rows = await this.guard(
      action,
      () =>
        run<{ last_update_time: number }>(this.pool, this.sql.appendDirect, [
          session.appName,
          session.userId,
          event.id,
          event.timestamp,
          plan.version,
          data.format,
          data.text,
          plan.scoped.session.any,
          changes.set.text,
          changes.removed,
          session.version,
          changes.set.format,
          lease ? lease.epoch : null,
          session.id,
        ]),
      APPEND_MAYBE_DONE,
    );
    if (rows.length !== 1) return undefined;
    return { ...plan, lastUpdateTime: rows[0]!.last_update_time };
  }

  async leaseSession(params: LeaseParams): Promise<LeaseTaken | undefined> {
    await this.ensureReady();
    const action = `leasing session '${params.sessionId}' for '${params.owner}'`;
    if (!params.read) return this.guard(action, () => this.leases.take(this.pool, params), MAYBE_DONE);
    const after = params.read.afterVersion;
    const taken = await this.guard(action, () => this.leases.takeAndRead(this.pool, params, after ?? 0), MAYBE_DONE);
    if (!taken) return undefined;
    const { lease, row } = taken;
    // One event per version since: otherwise the snapshot missed a write, and the runner reads again.
    if (row.events.length !== row.version - (after ?? 0)) return lease;
    const session = toSession(params.appName, params.userId, row, decodeEvents(row.events, row.id));
    if (after !== undefined) session.increment = { afterVersion: after, baseEventId: row.base_event_id ?? undefined };
    return { ...lease, session };
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    await this.ensureReady();
    return this.guard(
      `renewing the lease of session '${lease.sessionId}'`,
      () => this.leases.renew(this.pool, lease, ttlMs),
      MAYBE_DONE,
    );
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    await this.ensureReady();
    await this.guard(
      `releasing the lease of session '${lease.sessionId}'`,
      () => this.leases.release(this.pool, lease),
      MAYBE_DONE,
    );
  }

  /**
   * Stores a new pending run (see `RunRecordStore.createRun`): one transaction that takes turns with
   * the other creates for the session, so of two processes racing to start an exclusive run on one
   * session, exactly one does.
   */
  async createRun(params: CreateRunParams): Promise<RunRecord> {
    await this.ensureReady();
    return this.runs.create(this.pool, params);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    await this.ensureReady();
    return this.guard(`reading run '${runId}'`, () => this.runs.get(this.pool, runId));
  }

  async listRuns(filter: RunFilter): Promise<RunRecord[]> {
    await this.ensureReady();
    return this.guard('listing runs', () => this.runs.list(this.pool, filter));
  }

  /** Changes a run in one conditional UPDATE (compare-and-set); see `RunRecordStore.updateRun`. */
  async updateRun(runId: string, update: RunUpdate, condition?: RunCondition): Promise<RunRecord | undefined> {
    await this.ensureReady();
    return this.guard(
      `updating run '${runId}'`,
      () => this.runs.update(this.pool, runId, update, condition),
      UPDATE_MAYBE_DONE,
    );
  }

  /**
   * Resolves when the database answers `SELECT 1` within `healthTimeoutMs`; rejects with a
   * `StorageError` saying why otherwise. Servers report it on `/health`.
   */
  async checkHealth(): Promise<void> {
    this.assertOpen();
    await probe(this.pool, this.healthTimeoutMs);
  }

  /** Closes the pool the service opened (a pool passed in stays open). Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.releasePool();
  }

  private async appendInTransaction(client: pg.PoolClient, params: AppendEventParams): Promise<AppendPlan> {
    const { session, event } = params;
    // FOR UPDATE makes concurrent appends to one session take turns; the next one then sees the new
    // version. The lease epoch comes with the row, so checking the lease costs no extra round trip.
    const [head] = await run<SessionHeadRow>(client, this.sql.lockSession, [
      session.appName,
      session.userId,
      session.id,
      event.id,
    ]);
    // The head read brought the event stored under this id along, if any (planAppend asks for no other id).
    const plan = planAppend(
      params,
      head && { version: head.version, leaseEpoch: head.lease_epoch, lastUpdateTime: head.last_update_time },
      () =>
        head?.event_format != null
          ? decodeEvent({ format: head.event_format, data: head.event_data }, session.id)
          : undefined,
    );
    // `head` is set whenever there is a plan: planAppend throws for a missing session.
    if (plan.kind === 'duplicate' || !head) return plan;
    const { persisted, scoped, version, lastUpdateTime } = plan;
    const data = encodeValue(persisted, () => `Event '${event.id}' of session '${session.id}'`);
    await this.writeScoped(client, session.appName, session.userId, scoped, `event '${event.id}'`);
    const changes = encodeChanges(scoped.session, () => `The state delta of event '${event.id}'`);
    const updated = await runCount(client, this.sql.writeEvent, [
      head.pk,
      version,
      event.id,
      event.timestamp,
      data.format,
      data.text,
      lastUpdateTime,
      scoped.session.any,
      changes.set.text,
      changes.removed,
      head.version,
      changes.set.format,
    ]);
    if (updated !== 1) throw staleSessionError(session, undefined);
    return plan;
  }

  private async writeScoped(
    client: pg.PoolClient,
    appName: string,
    userId: string,
    scoped: ScopedDelta,
    source: string,
  ): Promise<void> {
    if (!scoped.app.any && !scoped.user.any) return;
    const app = encodeChanges(scoped.app, () => `The app: state of ${source}`);
    const user = encodeChanges(scoped.user, () => `The user: state of ${source}`);
    await run(client, this.sql.writeScoped, [
      appName,
      userId,
      app.set.format,
      app.set.text,
      app.removed,
      user.set.text,
      user.removed,
      user.set.format,
    ]);
  }

  /** Runs `work`, turning a lost connection into a StorageError that names `action` (and `outcome`, for a write). */
  private async guard<T>(action: string, work: () => Promise<T>, outcome?: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw asStorageError(action, error, outcome);
    }
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new ConfigurationError(
        `The PostgresSessionService for schema '${this.schema}' is closed. Create a new PostgresSessionService to use the database again.`,
      );
    }
  }

  private ensureReady(): Promise<void> | void {
    this.assertOpen();
    if (this.migrated) return;
    this.ready ??= this.prepare().then(
      () => {
        this.migrated = true;
      },
      (error: unknown) => {
        // Let the next call try again (the server may have been down); a newer schema fails again.
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  private async prepare(): Promise<void> {
    const action = `preparing schema '${this.schema}'`;
    if (await this.guard(action, () => isCurrent(this.pool, this.schema))) return;
    await inTransaction(this.pool, (client) => migrate(client, this.schema), {
      action,
      ifCommitLost: 'The next call checks the schema again.',
    });
  }
}

/** One scope's changes for SQL: the values to set (encoded) and the keys to remove, spelled as stored. */
function encodeChanges(changes: ScopeChanges, what: () => string): { set: EncodedValue; removed: string[] } {
  const set = changes.any ? encodeValue(changes.set, what) : { text: '{}', format: PLAIN_FORMAT };
  const removed = changes.removed.map(encodeKey);
  // A removed key that needed escaping is spelled as in format 2, so the merge must be in format 2.
  const escapedKey = removed.some((key, i) => key !== changes.removed[i]);
  return { set: escapedKey ? { ...set, format: VALUE_FORMAT } : set, removed };
}

function toSession(appName: string, userId: string, row: SessionRow, events: Event[]): Session {
  const state = decodeValue<Record<string, unknown>>(
    row.state_format,
    row.state,
    () => `The state of session '${row.id}'`,
  );
  addScoped(state, row.app, `app '${appName}'`);
  addScoped(state, row.usr, `user '${userId}' of app '${appName}'`);
  return { id: row.id, appName, userId, state, events, lastUpdateTime: row.last_update_time, version: row.version };
}

function addScoped(state: Record<string, unknown>, rows: ScopedRows, scope: string): void {
  for (const [stored, format, value] of rows) {
    const key = decodeKey(stored);
    state[key] = decodeValue(format, value, () => `State key '${key}' of ${scope}`);
  }
}

/** Events read as `[format, data]` pairs (aggregated in the statement that read their session). */
function decodeEvents(rows: readonly [number, unknown][], sessionId: string): Event[] {
  const events = new Array<Event>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [format, data] = rows[i]!;
    events[i] = decodeEvent({ format, data }, sessionId);
  }
  return events;
}

function decodeEvent(row: ValueRow, sessionId: string): Event {
  return decodeValue<Event>(row.format, row.data, () => `An event of session '${sessionId}'`);
}
