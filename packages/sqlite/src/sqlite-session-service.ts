import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  ConfigurationError,
  type CreateSessionParams,
  type Event,
  type GetSessionParams,
  type Session,
  type SessionKey,
  type SessionService,
} from '@troupe/core';
import { VALUE_FORMAT, decodeValue, encodeValue } from './codec.js';
import { migrate } from './schema.js';
import { assertValidDelta, splitDelta, withoutTempKeys, type ScopeChanges, type ScopedDelta, updateLiveSession, missingSessionError, sessionExistsError, staleSessionError } from '@troupe/core/stores';
import { prepareStatements, type ScopedValueRow, type SessionRow, type Statements, type ValueRow } from './statements.js';

/** Options of {@link SqliteSessionService}. */
export interface SqliteSessionServiceOptions {
  /**
   * The database file. It and its folder are created when missing; other services and processes
   * may open the same file. `':memory:'` gives a private database that ends with the service.
   */
  path: string;
  /**
   * How long a write waits for another connection (another service or process on the same file)
   * to finish its write before failing with `SQLITE_BUSY`, in milliseconds. better-sqlite3 is
   * synchronous, so the wait holds this thread; writes take microseconds, so waits are short.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` setting. `'normal'` (with WAL) never corrupts the file and loses no
   * committed append when the process crashes; only a power cut or an OS crash may lose the last
   * appends. `'full'` syncs every append to disk as well, at some cost in appends per second.
   * @default 'normal'
   */
  synchronous?: 'normal' | 'full';
}

type AppendOutcome = { stored: Event } | { persisted: Event; version: number; lastUpdateTime: number };

/**
 * Sessions kept in an SQLite file, the embedded default for persistence. Several services and
 * several processes may share one file: every append is one write transaction that checks the
 * session's `version` (optimistic concurrency), so a writer holding an outdated copy gets
 * `StaleSessionError` and nothing is interleaved. The schema is migrated forward on open; a file
 * written by a newer release fails at once with `SchemaVersionError`.
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
export class SqliteSessionService implements SessionService {
  /** The database file, as given. */
  readonly path: string;
  private readonly db: Database.Database;
  private readonly sql: Statements;
  private readonly appendTransaction: Database.Transaction<(session: Session, event: Event) => AppendOutcome>;
  private readonly readTransaction: Database.Transaction<(params: GetSessionParams) => Session | undefined>;
  private readonly createTransaction: Database.Transaction<(params: CreateSessionParams, sessionId: string, scoped: ScopedDelta, stateText: string) => Session>;
  private readonly listTransaction: Database.Transaction<(appName: string, userId: string) => Session[]>;
  private readonly deleteTransaction: Database.Transaction<(key: SessionKey) => void>;
  private closed = false;

  constructor(options: SqliteSessionServiceOptions) {
    const { path, busyTimeoutMs = 5000, synchronous = 'normal' } = checkOptions(options);
    this.path = path;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: busyTimeoutMs });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
      migrate(this.db, `'${path}'`);
      this.sql = prepareStatements(this.db);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.appendTransaction = this.db.transaction((session: Session, event: Event) => this.appendInTransaction(session, event));
    this.readTransaction = this.db.transaction((params: GetSessionParams) => this.readSession(params));
    this.createTransaction = this.db.transaction((params: CreateSessionParams, sessionId: string, scoped: ScopedDelta, stateText: string) =>
      this.createInTransaction(params, sessionId, scoped, stateText),
    );
    this.listTransaction = this.db.transaction((appName: string, userId: string) =>
      this.sql.listSessions.all(appName, userId).map((row) => this.toSession(appName, userId, row, [])),
    );
    this.deleteTransaction = this.db.transaction((key: SessionKey) => {
      const head = this.sql.selectSessionHead.get(key.appName, key.userId, key.sessionId);
      if (!head) return;
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
    return this.createTransaction.immediate(params, sessionId, scoped, stateText);
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    this.assertOpen();
    // One read transaction: the session, its state and its events come from the same snapshot.
    return this.readTransaction(params);
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    this.assertOpen();
    return { sessions: this.listTransaction(params.appName, params.userId) };
  }

  async deleteSession(params: SessionKey): Promise<void> {
    this.assertOpen();
    this.deleteTransaction.immediate(params);
  }

  async appendEvent({ session, event }: { session: Session; event: Event }): Promise<Event> {
    if (event.partial) return event;
    this.assertOpen();
    // IMMEDIATE takes the write lock before reading the version, so no other writer can slip in between.
    const outcome = this.appendTransaction.immediate(session, event);
    if ('stored' in outcome) return outcome.stored;
    // The live session changes only after the commit, and keeps temp: keys for this invocation.
    updateLiveSession(session, event.actions.stateDelta, outcome.persisted, outcome.version, outcome.lastUpdateTime);
    return outcome.persisted;
  }

  /** Closes the database. Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private createInTransaction(params: CreateSessionParams, sessionId: string, scoped: ScopedDelta, stateText: string): Session {
    if (this.sql.selectSessionHead.get(params.appName, params.userId, sessionId)) {
      throw sessionExistsError(params.appName, params.userId, sessionId);
    }
    const now = Date.now();
    const { lastInsertRowid } = this.sql.insertSession.run(params.appName, params.userId, sessionId, VALUE_FORMAT, stateText, 0, now);
    this.applyScoped(params.appName, params.userId, scoped.app, scoped.user, `session '${sessionId}'`);
    const row: SessionRow = { pk: Number(lastInsertRowid), id: sessionId, state_format: VALUE_FORMAT, state: stateText, version: 0, last_update_time: now };
    return this.toSession(params.appName, params.userId, row, []);
  }

  private appendInTransaction(session: Session, event: Event): AppendOutcome {
    const head = this.sql.selectSessionHead.get(session.appName, session.userId, session.id);
    if (!head) {
      throw missingSessionError(session);
    }
    const existing = this.sql.selectEventById.get(head.pk, event.id);
    if (existing) return { stored: this.decodeEvent(existing, session.id) };
    if (session.version !== head.version) {
      throw staleSessionError(session, head.version);
    }
    const delta = event.actions.stateDelta;
    assertValidDelta(delta);
    const persistedDelta = withoutTempKeys(delta);
    const persisted = persistedDelta === delta ? event : { ...event, actions: { ...event.actions, stateDelta: persistedDelta } };
    const data = encodeValue(persisted, () => `Event '${event.id}' of session '${session.id}'`);

    const scoped = splitDelta(persistedDelta);
    this.applyScoped(session.appName, session.userId, scoped.app, scoped.user, `event '${event.id}'`);
    const version = head.version + 1;
    const lastUpdateTime = Math.max(event.timestamp, head.last_update_time);
    this.sql.insertEvent.run(head.pk, version, event.id, event.timestamp, VALUE_FORMAT, data);
    if (scoped.session.any) {
      const stateText = this.mergedSessionState(head.pk, session.id, scoped.session, event.id);
      this.sql.updateSessionHeadAndState.run(version, lastUpdateTime, VALUE_FORMAT, stateText, head.pk);
    } else {
      this.sql.updateSessionHead.run(version, lastUpdateTime, head.pk);
    }
    return { persisted, version, lastUpdateTime };
  }

  private mergedSessionState(pk: number, sessionId: string, changes: ScopeChanges, eventId: string): string {
    const row = this.sql.selectSessionState.get(pk);
    const state = row ? decodeValue<Record<string, unknown>>(row.state_format, row.state, () => `The state of session '${sessionId}'`) : {};
    for (const key in changes.set) state[key] = changes.set[key];
    for (const key of changes.removed) delete state[key];
    return encodeValue(state, () => `The state of session '${sessionId}' after event '${eventId}'`);
  }

  private applyScoped(appName: string, userId: string, app: ScopeChanges, user: ScopeChanges, source: string): void {
    for (const key in app.set) {
      this.sql.upsertAppState.run(appName, key, VALUE_FORMAT, encodeValue(app.set[key], () => `State key '${key}' of ${source}`));
    }
    for (const key of app.removed) this.sql.deleteAppState.run(appName, key);
    for (const key in user.set) {
      this.sql.upsertUserState.run(appName, userId, key, VALUE_FORMAT, encodeValue(user.set[key], () => `State key '${key}' of ${source}`));
    }
    for (const key of user.removed) this.sql.deleteUserState.run(appName, userId, key);
  }

  private readSession(params: GetSessionParams): Session | undefined {
    const row = this.sql.selectSession.get(params.appName, params.userId, params.sessionId);
    if (!row) return undefined;
    const limit = params.numRecentEvents;
    let events: Event[] = [];
    if (limit === undefined || limit > 0) {
      const rows = this.sql.selectEventsNewestFirst.all(row.pk, params.afterTimestamp ?? -Infinity, limit === undefined ? -1 : Math.floor(limit));
      events = new Array<Event>(rows.length);
      for (let i = 0; i < rows.length; i++) events[rows.length - 1 - i] = this.decodeEvent(rows[i]!, row.id);
    }
    return this.toSession(params.appName, params.userId, row, events);
  }

  private toSession(appName: string, userId: string, row: SessionRow, events: Event[]): Session {
    const state = decodeValue<Record<string, unknown>>(row.state_format, row.state, () => `The state of session '${row.id}'`);
    addScoped(state, this.sql.selectAppState.all(appName), `app '${appName}'`);
    addScoped(state, this.sql.selectUserState.all(appName, userId), `user '${userId}' of app '${appName}'`);
    return { id: row.id, appName, userId, state, events, lastUpdateTime: row.last_update_time, version: row.version };
  }

  private decodeEvent(row: ValueRow, sessionId: string): Event {
    return decodeValue<Event>(row.format, row.data, () => `An event of session '${sessionId}'`);
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new ConfigurationError(`The SqliteSessionService for '${this.path}' is closed. Create a new SqliteSessionService to open the file again.`);
    }
  }
}

function addScoped(state: Record<string, unknown>, rows: ScopedValueRow[], scope: string): void {
  for (const row of rows) state[row.key] = decodeValue(row.format, row.value, () => `State key '${row.key}' of ${scope}`);
}

function checkOptions(options: SqliteSessionServiceOptions): SqliteSessionServiceOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`SqliteSessionService needs an options object; got ${String(options)}. Write new SqliteSessionService({ path: 'sessions.db' }).`);
  }
  const { path, busyTimeoutMs, synchronous } = options;
  if (typeof path !== 'string' || path.length === 0) {
    throw new ConfigurationError(`SqliteSessionService option 'path' must be a non-empty file path; got ${JSON.stringify(path)}. Pass e.g. { path: '.troupe/sessions.db' }, or ':memory:' for a private database.`);
  }
  if (busyTimeoutMs !== undefined && !(Number.isInteger(busyTimeoutMs) && busyTimeoutMs >= 0)) {
    throw new ConfigurationError(`SqliteSessionService option 'busyTimeoutMs' must be a whole number of milliseconds ≥ 0; got ${String(busyTimeoutMs)}. Omit it for the default of 5000.`);
  }
  if (synchronous !== undefined && synchronous !== 'normal' && synchronous !== 'full') {
    throw new ConfigurationError(`SqliteSessionService option 'synchronous' must be 'normal' or 'full'; got ${JSON.stringify(synchronous)}. Omit it for 'normal'.`);
  }
  return options;
}
