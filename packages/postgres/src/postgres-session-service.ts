import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
import { buildQueries, type Queries, type Query, type ScopedRows, type SessionHeadRow, type SessionRow, type ValueRow } from './queries.js';
import { migrate } from './schema.js';
import { assertValidDelta, splitDelta, withoutTempKeys, type ScopedDelta, updateLiveSession, missingSessionError, sessionExistsError, staleSessionError } from '@troupe/core/stores';
import { inTransaction } from './transaction.js';

/** Options of {@link PostgresSessionService}. Give `connectionString` or `pool`. */
export interface PostgresSessionServiceOptions {
  /** Where the database is, e.g. `postgres://user:password@127.0.0.1:5432/app`. The service opens and closes its own pool. */
  connectionString?: string;
  /** A pool you own and configure (size, TLS, timeouts). `close()` leaves it open. */
  pool?: pg.Pool;
  /**
   * The PostgreSQL schema holding the tables; created on first use. Letters, digits and `_` only.
   * @default 'troupe'
   */
  schema?: string;
}

type AppendOutcome = { stored: Event } | { persisted: Event; version: number; lastUpdateTime: number };

/**
 * Sessions kept in PostgreSQL, for services that run several processes or machines. Tables live in
 * their own schema and are created or migrated forward on first use, under an advisory lock so
 * processes starting together migrate once; a schema written by a newer release fails with
 * `SchemaVersionError`. Every append is one transaction that locks the session row and checks
 * its `version`, so a writer holding an outdated copy gets `StaleSessionError` and nothing is
 * interleaved. Events and state are JSONB, each value with a format number so the encoding can evolve.
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
export class PostgresSessionService implements SessionService {
  /** The schema holding the tables. */
  readonly schema: string;
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly sql: Queries;
  private ready: Promise<void> | undefined;
  private migrated = false;
  private closed = false;

  constructor(options: PostgresSessionServiceOptions) {
    const { connectionString, pool, schema = 'troupe' } = checkOptions(options);
    this.schema = schema;
    this.sql = buildQueries(schema);
    if (pool) {
      this.pool = pool;
      this.ownsPool = false;
    } else {
      this.pool = new pg.Pool({ connectionString });
      this.ownsPool = true;
      // An idle connection that breaks (a server restart) is dropped by the pool; the next query
      // opens a new one or fails with its own error. Without a listener the event would crash the process.
      this.pool.on('error', () => undefined);
    }
  }

  async createSession(params: CreateSessionParams): Promise<Session> {
    await this.ensureReady();
    const sessionId = params.sessionId ?? randomUUID();
    const initial = params.state ?? {};
    assertValidDelta(initial);
    const scoped = splitDelta(initial);
    const stateText = encodeValue(scoped.session.set, () => `The initial state of session '${sessionId}'`);
    return inTransaction(this.pool, async (client) => {
      const now = Date.now();
      const inserted = await run<{ pk: string }>(client, this.sql.insertSession, [params.appName, params.userId, sessionId, VALUE_FORMAT, stateText, now]);
      if (inserted.length === 0) {
        throw sessionExistsError(params.appName, params.userId, sessionId);
      }
      await this.writeScoped(client, params.appName, params.userId, scoped, `session '${sessionId}'`);
      const [scopedRows] = await run<{ app: ScopedRows; usr: ScopedRows }>(client, this.sql.selectScoped, [params.appName, params.userId]);
      const row: SessionRow = {
        pk: inserted[0]!.pk,
        id: sessionId,
        state_format: VALUE_FORMAT,
        // A copy, as if read back: the caller's objects never end up inside the returned session.
        state: JSON.parse(stateText) as Record<string, unknown>,
        version: 0,
        last_update_time: now,
        app: scopedRows?.app ?? [],
        usr: scopedRows?.usr ?? [],
      };
      return toSession(params.appName, params.userId, row, []);
    });
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    await this.ensureReady();
    const [row] = await run<SessionRow>(this.pool, this.sql.selectSession, [params.appName, params.userId, params.sessionId]);
    if (!row) return undefined;
    const limit = params.numRecentEvents;
    let events: Event[] = [];
    if (limit === undefined || limit > 0) {
      const rows = await run<ValueRow>(this.pool, this.sql.selectEventsNewestFirst, [
        row.pk,
        row.version,
        params.afterTimestamp ?? -Infinity,
        limit === undefined ? null : Math.floor(limit),
      ]);
      events = new Array<Event>(rows.length);
      for (let i = 0; i < rows.length; i++) events[rows.length - 1 - i] = decodeEvent(rows[i]!, row.id);
    }
    return toSession(params.appName, params.userId, row, events);
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    await this.ensureReady();
    const rows = await run<SessionRow>(this.pool, this.sql.listSessions, [params.appName, params.userId]);
    return { sessions: rows.map((row) => toSession(params.appName, params.userId, row, [])) };
  }

  async deleteSession(params: SessionKey): Promise<void> {
    await this.ensureReady();
    // Its events go with it (ON DELETE CASCADE).
    await run(this.pool, this.sql.deleteSession, [params.appName, params.userId, params.sessionId]);
  }

  async appendEvent({ session, event }: { session: Session; event: Event }): Promise<Event> {
    if (event.partial) return event;
    await this.ensureReady();
    const outcome = await inTransaction(this.pool, (client) => this.appendInTransaction(client, session, event));
    if ('stored' in outcome) return outcome.stored;
    // The live session changes only after the commit, and keeps temp: keys for this invocation.
    updateLiveSession(session, event.actions.stateDelta, outcome.persisted, outcome.version, outcome.lastUpdateTime);
    return outcome.persisted;
  }

  /** Closes the pool the service opened (a pool passed in stays open). Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  private async appendInTransaction(client: pg.PoolClient, session: Session, event: Event): Promise<AppendOutcome> {
    // FOR UPDATE makes concurrent appends to one session take turns; the next one then sees the new version.
    const [head] = await run<SessionHeadRow>(client, this.sql.lockSession, [session.appName, session.userId, session.id]);
    if (!head) {
      throw missingSessionError(session);
    }
    const [existing] = await run<ValueRow>(client, this.sql.selectEventById, [head.pk, event.id]);
    if (existing) return { stored: decodeEvent(existing, session.id) };
    if (session.version !== head.version) throw staleSessionError(session, head.version);
    const delta = event.actions.stateDelta;
    assertValidDelta(delta);
    const persistedDelta = withoutTempKeys(delta);
    const persisted = persistedDelta === delta ? event : { ...event, actions: { ...event.actions, stateDelta: persistedDelta } };
    const data = encodeValue(persisted, () => `Event '${event.id}' of session '${session.id}'`);

    const scoped = splitDelta(persistedDelta);
    await this.writeScoped(client, session.appName, session.userId, scoped, `event '${event.id}'`);
    const version = head.version + 1;
    const lastUpdateTime = Math.max(event.timestamp, head.last_update_time);
    const changes = scoped.session;
    const updated = await runCount(client, this.sql.writeEvent, [
      head.pk,
      version,
      event.id,
      event.timestamp,
      VALUE_FORMAT,
      data,
      lastUpdateTime,
      changes.any,
      changes.any ? encodeValue(changes.set, () => `The state delta of event '${event.id}'`) : '{}',
      changes.removed,
      head.version,
    ]);
    if (updated !== 1) throw staleSessionError(session, undefined);
    return { persisted, version, lastUpdateTime };
  }

  private async writeScoped(client: pg.PoolClient, appName: string, userId: string, scoped: ScopedDelta, source: string): Promise<void> {
    if (!scoped.app.any && !scoped.user.any) return;
    await run(client, this.sql.writeScoped, [
      appName,
      userId,
      VALUE_FORMAT,
      encodeValue(scoped.app.set, () => `The app: state of ${source}`),
      scoped.app.removed,
      encodeValue(scoped.user.set, () => `The user: state of ${source}`),
      scoped.user.removed,
    ]);
  }

  private ensureReady(): Promise<void> | void {
    if (this.closed) {
      throw new ConfigurationError(`The PostgresSessionService for schema '${this.schema}' is closed. Create a new PostgresSessionService to use the database again.`);
    }
    if (this.migrated) return;
    this.ready ??= inTransaction(this.pool, async (client) => {
      await migrate(client, this.schema);
    }).then(
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
}

function toSession(appName: string, userId: string, row: SessionRow, events: Event[]): Session {
  const state = decodeValue<Record<string, unknown>>(row.state_format, row.state, () => `The state of session '${row.id}'`);
  addScoped(state, row.app, `app '${appName}'`);
  addScoped(state, row.usr, `user '${userId}' of app '${appName}'`);
  return { id: row.id, appName, userId, state, events, lastUpdateTime: row.last_update_time, version: row.version };
}

function addScoped(state: Record<string, unknown>, rows: ScopedRows, scope: string): void {
  for (const [key, format, value] of rows) state[key] = decodeValue(format, value, () => `State key '${key}' of ${scope}`);
}

function decodeEvent(row: ValueRow, sessionId: string): Event {
  return decodeValue<Event>(row.format, row.data, () => `An event of session '${sessionId}'`);
}


/** Runs a named statement and returns its rows; explains the one JSON value PostgreSQL refuses. */
async function run<R extends pg.QueryResultRow = pg.QueryResultRow>(client: pg.Pool | pg.PoolClient, query: Query, values: unknown[]): Promise<R[]> {
  return (await execute<R>(client, query, values)).rows;
}

async function runCount(client: pg.PoolClient, query: Query, values: unknown[]): Promise<number> {
  return (await execute(client, query, values)).rowCount ?? 0;
}

async function execute<R extends pg.QueryResultRow>(client: pg.Pool | pg.PoolClient, query: Query, values: unknown[]): Promise<pg.QueryResult<R>> {
  try {
    return await client.query<R>({ name: query.name, text: query.text, values });
  } catch (error) {
    if ((error as { code?: unknown }).code === '22P05') {
      throw new ConfigurationError(
        `PostgreSQL refused a value: ${(error as Error).message}. JSONB cannot hold the character \\u0000 in strings; remove it, or store binary data as base64 (inlineData).`,
      );
    }
    throw error;
  }
}

function checkOptions(options: PostgresSessionServiceOptions): PostgresSessionServiceOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `PostgresSessionService needs an options object; got ${String(options)}. Write new PostgresSessionService({ connectionString: 'postgres://user@127.0.0.1:5432/app' }).`,
    );
  }
  const { connectionString, pool, schema } = options;
  if (pool !== undefined && connectionString !== undefined) {
    throw new ConfigurationError(
      "PostgresSessionService got both 'connectionString' and 'pool'. Give one: the connection string to let the service open its own pool, or your pool.",
    );
  }
  if (pool === undefined && (typeof connectionString !== 'string' || connectionString.length === 0)) {
    throw new ConfigurationError(
      `PostgresSessionService option 'connectionString' must be a non-empty string; got ${JSON.stringify(connectionString)}. Pass e.g. { connectionString: 'postgres://user@127.0.0.1:5432/app' }, or { pool }.`,
    );
  }
  if (pool !== undefined && !(typeof pool === 'object' && pool !== null && typeof pool.connect === 'function' && typeof pool.query === 'function')) {
    throw new ConfigurationError(`PostgresSessionService option 'pool' must be a pg Pool; got ${String(pool)}. Pass new Pool({ ... }) from 'pg', or use connectionString.`);
  }
  if (schema !== undefined && !(typeof schema === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))) {
    throw new ConfigurationError(
      `PostgresSessionService option 'schema' must be 1 to 63 letters, digits or '_', not starting with a digit; got ${JSON.stringify(schema)}. Omit it for 'troupe'.`,
    );
  }
  return options;
}
