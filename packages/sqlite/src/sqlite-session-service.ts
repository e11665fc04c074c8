import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  ConfigurationError,
  StorageError,
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
  type LeasingSessionService,
  type RunCondition,
  type RunFilter,
  type RunRecord,
  type RunRecordStore,
  type RunUpdate,
  type SessionLease,
} from '@troupe/core/stores';
import { VALUE_FORMAT, decodeValue, encodeValue } from './codec.js';
import { releaseLease, renewLease, takeLease } from './leases.js';
import { resolveOptions, type SqliteSessionServiceOptions } from './options.js';
import { openDatabase, siteOf } from './open-database.js';
import { SqliteRuns } from './runs.js';
import { SCHEMA_VERSION, checkedVersion } from './schema.js';
import { guarded, type StorageSite } from './storage-errors.js';
import {
  assertValidDelta,
  checkAfterVersion,
  splitDelta,
  type ScopeChanges,
  type ScopedDelta,
  finishAppend,
  planAppend,
  sessionExistsError,
  type AppendPlan,
} from '@troupe/core/stores';
import type { ScopedValueRow, SessionRow, Statements, ValueRow } from './statements.js';

export type { SqliteSessionServiceOptions } from './options.js';

/**
 * Sessions kept in an SQLite file, the embedded default for persistence. Several services and
 * several processes may share one file: every append is one write transaction that checks the
 * session's `version` (optimistic concurrency), so a writer holding an outdated copy gets
 * `StaleSessionError` and nothing is interleaved. The schema is migrated forward on open; a file
 * written by a newer release fails at once with `SchemaVersionError`.
 *
 * It leases sessions (`LeasingSessionService`): the lease lives on the session's row, is taken in
 * one atomic statement (one owner wins across processes), and an append checks its epoch in the
 * same transaction that stores it. It keeps the run records of background runs (`RunRecordStore`)
 * in the `runs` table; deleting a session deletes its runs. When the storage fails (a read-only
 * file, a full disk, an I/O error, a lock held past `busyTimeoutMs`) the operation rejects with a
 * `StorageError` naming the file and the remedy, stores nothing, and the service keeps working
 * once the cause is gone.
 *
 * Runs on better-sqlite3 in WAL mode. Its calls are synchronous under the returned promises: each
 * is a few indexed reads and writes, and an append never reads the session's other events.
 *
 * @example
 * import { Runner } from '@troupe/core';
 * import { SqliteSessionService } from '@troupe/sqlite';
 *
 * const sessionService = new SqliteSessionService({ path: '.troupe/sessions.db' });
 * const runner = new Runner({ appName: 'travel', agent, sessionService });
 * const session = await sessionService.createSession({ appName: 'travel', userId: 'u1' });
 * await runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'Book a flight to Paris' });
 * await sessionService.close();
 */
export class SqliteSessionService implements LeasingSessionService, RunRecordStore {
  /** The database file, as given. */
  readonly path: string;
  /** What a `StorageError` names besides the operation. */
  private readonly site: StorageSite;
  private readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly runs: SqliteRuns;
  private readonly appendTransaction: Database.Transaction<(params: AppendEventParams) => AppendPlan>;
  private readonly readTransaction: Database.Transaction<(params: GetSessionParams) => Session | undefined>;
  private readonly createTransaction: Database.Transaction<
    (params: CreateSessionParams, sessionId: string, scoped: ScopedDelta, stateText: string) => Session
  >;
  private readonly listTransaction: Database.Transaction<(appName: string, userId: string) => Session[]>;
  private readonly deleteTransaction: Database.Transaction<(key: SessionKey) => void>;
  private closed = false;

  /**
   * Opens (or creates) the file and migrates its schema forward.
   * @throws ConfigurationError for an invalid option; `SchemaVersionError` for a file written by
   * a newer release; `StorageError` when the file or its folder cannot be created, opened or
   * (for a migration) written.
   */
  constructor(options: SqliteSessionServiceOptions) {
    const resolved = resolveOptions(options);
    this.path = resolved.path;
    this.site = siteOf(resolved);
    const { db, sql } = openDatabase(resolved);
    this.db = db;
    this.sql = sql;
    this.runs = new SqliteRuns(db);
    this.appendTransaction = db.transaction((params: AppendEventParams) => this.appendInTransaction(params));
    this.readTransaction = db.transaction((params: GetSessionParams) => this.readSession(params));
    this.createTransaction = db.transaction(
      (params: CreateSessionParams, sessionId: string, scoped: ScopedDelta, stateText: string) =>
        this.createInTransaction(params, sessionId, scoped, stateText),
    );
    this.listTransaction = db.transaction((appName: string, userId: string) =>
      this.sql.listSessions.all(appName, userId).map((row) => this.toSession(appName, userId, row, [])),
    );
    this.deleteTransaction = db.transaction((key: SessionKey) => {
      const head = this.sql.selectSessionHead.get(key.appName, key.userId, key.sessionId);
      if (!head) return;
      this.runs.deleteSession(key);
      this.sql.deleteEvents.run(head.pk);
      this.sql.deleteSession.run(head.pk);
    });
  }

  async createSession(params: CreateSessionParams): Promise<Session> {
    this.assertOpen();
    const sessionId = params.sessionId ?? randomUUID();
    const initial = params.state ?? {};
    assertValidDelta(initial);
    const scoped = splitDelta(initial);
    const stateText = encodeValue(scoped.session.set, () => `The initial state of session '${sessionId}'`);
    return this.guard(
      true,
      () => `create session '${sessionId}' (app '${params.appName}', user '${params.userId}')`,
      () => this.createTransaction.immediate(params, sessionId, scoped, stateText),
    );
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    this.assertOpen();
    checkAfterVersion(params);
    // One read transaction: the session, its state and its events come from the same snapshot.
    return this.guard(
      false,
      () => `read session '${params.sessionId}' (app '${params.appName}', user '${params.userId}')`,
      () => this.readTransaction(params),
    );
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    this.assertOpen();
    const sessions = this.guard(
      false,
      () => `list the sessions of user '${params.userId}' in app '${params.appName}'`,
      () => this.listTransaction(params.appName, params.userId),
    );
    return { sessions };
  }

  async deleteSession(params: SessionKey): Promise<void> {
    this.assertOpen();
    this.guard(
      true,
      () => `delete session '${params.sessionId}' (app '${params.appName}', user '${params.userId}')`,
      () => this.deleteTransaction.immediate(params),
    );
  }

  async appendEvent(params: AppendEventParams): Promise<Event> {
    const { session, event } = params;
    if (event.partial) return event;
    this.assertOpen();
    // IMMEDIATE takes the write lock before reading the version and the lease epoch, so no other
    // writer (nor a lease takeover) can slip in between the checks and the write.
    const plan = this.guard(
      true,
      () => `append event '${event.id}' to session '${session.id}'`,
      () => this.appendTransaction.immediate(params),
    );
    // The live session changes only after the commit.
    return finishAppend(params, plan);
  }

  /**
   * Takes the session's lease for `params.owner` in one atomic statement, so of two services or
   * processes racing for it exactly one gets it. Undefined when another owner holds an unexpired
   * lease; throws `SessionNotFoundError` for a missing session.
   */
  async leaseSession(params: LeaseParams): Promise<SessionLease | undefined> {
    this.assertOpen();
    return this.guard(
      true,
      () => `lease session '${params.sessionId}' for '${params.owner}'`,
      () => takeLease(this.sql, params, Date.now()),
    );
  }

  /** Extends a held lease to `ttlMs` from now; throws `LeaseLostError` when another owner took it over. */
  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    this.assertOpen();
    return this.guard(
      true,
      () => `renew the lease of session '${lease.sessionId}' for '${lease.owner}'`,
      () => renewLease(this.sql, lease, ttlMs, Date.now()),
    );
  }

  /** Frees a held lease at once; does nothing when it was taken over. */
  async releaseLease(lease: SessionLease): Promise<void> {
    this.assertOpen();
    this.guard(
      true,
      () => `release the lease of session '${lease.sessionId}' for '${lease.owner}'`,
      () => releaseLease(this.sql, lease),
    );
  }

  /**
   * Stores a new pending run (see `RunRecordStore.createRun`). The run id, session and exclusive
   * checks and the insert are one write transaction, so of two services or processes racing to
   * start an exclusive run on one session, exactly one does.
   */
  async createRun(params: CreateRunParams): Promise<RunRecord> {
    this.assertOpen();
    return this.guard(
      true,
      () => `create run '${params.runId}' for session '${params.sessionId}'`,
      () => this.runs.create(params),
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    this.assertOpen();
    return this.guard(
      false,
      () => `read run '${runId}'`,
      () => this.runs.get(runId),
    );
  }

  async listRuns(filter: RunFilter): Promise<RunRecord[]> {
    this.assertOpen();
    return this.guard(
      false,
      () => 'list runs',
      () => this.runs.list(filter),
    );
  }

  /** Changes a run in one conditional UPDATE (compare-and-set); see `RunRecordStore.updateRun`. */
  async updateRun(runId: string, update: RunUpdate, condition?: RunCondition): Promise<RunRecord | undefined> {
    this.assertOpen();
    return this.guard(
      true,
      () => `update run '${runId}'`,
      () => this.runs.update(runId, update, condition),
    );
  }

  /**
   * Resolves when the file answers a trivial query (its schema version) and is still at the
   * version this release writes; rejects with a `StorageError` naming the problem otherwise
   * (including a service that was closed, or a file another process migrated to a newer release).
   */
  async checkHealth(): Promise<void> {
    if (this.closed) {
      throw new StorageError(
        `The SQLite session store '${this.path}' is closed, so it cannot serve requests. Create a new SqliteSessionService to open the file again.`,
      );
    }
    try {
      this.guard(
        false,
        () => 'answer a health check',
        () => checkedVersion(this.db, `'${this.path}'`, SCHEMA_VERSION),
      );
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError(
        `The SQLite session store '${this.path}' failed its health check: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /** Closes the database. Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /**
   * Runs one operation, turning an SQLite failure that is the storage's fault into a
   * `StorageError` that names the file, the operation and the remedy. Every write runs in one
   * transaction, which SQLite (and better-sqlite3's wrapper) rolls back when it fails, so such a
   * failure never leaves half an operation stored.
   */
  private guard<T>(writes: boolean, doing: () => string, work: () => T): T {
    return guarded(this.site, writes, doing, work);
  }

  private createInTransaction(
    params: CreateSessionParams,
    sessionId: string,
    scoped: ScopedDelta,
    stateText: string,
  ): Session {
    if (this.sql.selectSessionHead.get(params.appName, params.userId, sessionId)) {
      throw sessionExistsError(params.appName, params.userId, sessionId);
    }
    const now = Date.now();
    const { lastInsertRowid } = this.sql.insertSession.run(
      params.appName,
      params.userId,
      sessionId,
      VALUE_FORMAT,
      stateText,
      0,
      now,
    );
    this.applyScoped(params.appName, params.userId, scoped.app, scoped.user, `session '${sessionId}'`);
    const row: SessionRow = {
      pk: Number(lastInsertRowid),
      id: sessionId,
      state_format: VALUE_FORMAT,
      state: stateText,
      version: 0,
      last_update_time: now,
    };
    return this.toSession(params.appName, params.userId, row, []);
  }

  private appendInTransaction(params: AppendEventParams): AppendPlan {
    const { session, event } = params;
    const row = this.sql.selectSessionHead.get(session.appName, session.userId, session.id);
    // The epoch comes with the head row: the lease check costs no extra read.
    const head = row && { version: row.version, leaseEpoch: row.lease_epoch, lastUpdateTime: row.last_update_time };
    const plan = planAppend(params, head, (id) => {
      const existing = row && this.sql.selectEventById.get(row.pk, id);
      return existing ? this.decodeEvent(existing, session.id) : undefined;
    });
    // `row` is set whenever there is a plan: planAppend throws for a missing session.
    if (plan.kind === 'duplicate' || !row) return plan;
    const { persisted, scoped, version, lastUpdateTime } = plan;
    const data = encodeValue(persisted, () => `Event '${event.id}' of session '${session.id}'`);
    this.applyScoped(session.appName, session.userId, scoped.app, scoped.user, `event '${event.id}'`);
    this.sql.insertEvent.run(row.pk, version, event.id, event.timestamp, VALUE_FORMAT, data);
    if (scoped.session.any) {
      const stateText = this.mergedSessionState(row.pk, session.id, scoped.session, event.id);
      this.sql.updateSessionHeadAndState.run(version, lastUpdateTime, VALUE_FORMAT, stateText, row.pk);
    } else {
      this.sql.updateSessionHead.run(version, lastUpdateTime, row.pk);
    }
    return plan;
  }

  private mergedSessionState(pk: number, sessionId: string, changes: ScopeChanges, eventId: string): string {
    const row = this.sql.selectSessionState.get(pk);
    const state = row
      ? decodeValue<Record<string, unknown>>(row.state_format, row.state, () => `The state of session '${sessionId}'`)
      : {};
    for (const key in changes.set) state[key] = changes.set[key];
    for (const key of changes.removed) delete state[key];
    return encodeValue(state, () => `The state of session '${sessionId}' after event '${eventId}'`);
  }

  private applyScoped(appName: string, userId: string, app: ScopeChanges, user: ScopeChanges, source: string): void {
    for (const key in app.set) {
      this.sql.upsertAppState.run(
        appName,
        key,
        VALUE_FORMAT,
        encodeValue(app.set[key], () => `State key '${key}' of ${source}`),
      );
    }
    for (const key of app.removed) this.sql.deleteAppState.run(appName, key);
    for (const key in user.set) {
      this.sql.upsertUserState.run(
        appName,
        userId,
        key,
        VALUE_FORMAT,
        encodeValue(user.set[key], () => `State key '${key}' of ${source}`),
      );
    }
    for (const key of user.removed) this.sql.deleteUserState.run(appName, userId, key);
  }

  private readSession(params: GetSessionParams): Session | undefined {
    const row = this.sql.selectSession.get(params.appName, params.userId, params.sessionId);
    if (!row) return undefined;
    const limit = params.numRecentEvents;
    const after = params.afterVersion;
    let events: Event[] = [];
    if (limit === undefined || limit > 0) {
      const rows = this.sql.selectEventsNewestFirst.all(
        row.pk,
        after ?? 0,
        params.afterTimestamp ?? -Infinity,
        limit === undefined ? -1 : Math.floor(limit),
      );
      events = new Array<Event>(rows.length);
      for (let i = 0; i < rows.length; i++) events[rows.length - 1 - i] = this.decodeEvent(rows[i]!, row.id);
    }
    const session = this.toSession(params.appName, params.userId, row, events);
    if (after !== undefined)
      session.increment = {
        afterVersion: after,
        baseEventId: after > 0 ? this.sql.selectEventIdAtOrBefore.get(row.pk, after)?.id : undefined,
      };
    return session;
  }

  private toSession(appName: string, userId: string, row: SessionRow, events: Event[]): Session {
    const state = decodeValue<Record<string, unknown>>(
      row.state_format,
      row.state,
      () => `The state of session '${row.id}'`,
    );
    addScoped(state, this.sql.selectAppState.all(appName), `app '${appName}'`);
    addScoped(state, this.sql.selectUserState.all(appName, userId), `user '${userId}' of app '${appName}'`);
    return { id: row.id, appName, userId, state, events, lastUpdateTime: row.last_update_time, version: row.version };
  }

  private decodeEvent(row: ValueRow, sessionId: string): Event {
    return decodeValue<Event>(row.format, row.data, () => `An event of session '${sessionId}'`);
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new ConfigurationError(
        `The SqliteSessionService for '${this.path}' is closed. Create a new SqliteSessionService to open the file again.`,
      );
    }
  }
}

function addScoped(state: Record<string, unknown>, rows: ScopedValueRow[], scope: string): void {
  for (const row of rows)
    state[row.key] = decodeValue(row.format, row.value, () => `State key '${row.key}' of ${scope}`);
}
