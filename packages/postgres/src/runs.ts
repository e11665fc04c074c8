import type pg from 'pg';
import {
  type CreateRunParams,
  type RunCondition,
  type RunFilter,
  type RunRecord,
  type RunUpdate,
} from '@troupe/core/stores';
import {
  ACTIVE_RUN_STATUSES,
  encodeRunRequest,
  encodeRunUpdate,
  missingRunSessionError,
  runExistsError,
  runFromRow,
  runListLimit,
  sessionBusyError,
  type RunRow,
} from '@troupe/core/stores';
import { queryNamer, run, type Db } from './queries.js';
import { quoteIdentifier } from './schema.js';
import { inTransaction } from './transaction.js';

/** What a create reads back: the checks, and the run's columns (all null when it was not inserted). */
type CreateRow = { taken: boolean; found: boolean; active: string | null } & (RunRow | { [K in keyof RunRow]: null });

/**
 * Run records in PostgreSQL, in the `runs` table (schema version 3). Times are the database's clock
 * (`clock_timestamp()`), as for leases, so replicas whose clocks disagree still order runs alike.
 * A run's session is a foreign key with ON DELETE CASCADE: deleting the session deletes its runs.
 */
export class Runs {
  private readonly sql: ReturnType<typeof buildRunQueries>;

  constructor(private readonly schema: string) {
    this.sql = buildRunQueries(schema);
  }

  /**
   * Stores a new pending run (see `RunRecordStore.createRun`). Creates for one session take turns on
   * a transaction-scoped advisory lock keyed by the session: the exclusive check and the insert are
   * then atomic across connections and processes, and a session's runs commit in `seq` order.
   */
  async create(pool: pg.Pool, params: CreateRunParams): Promise<RunRecord> {
    const { runId, appName, userId, sessionId } = params;
    const request = encodeRunRequest(runId, params.request);
    const lockKey = JSON.stringify(['troupe-runs', this.schema, appName, userId, sessionId]);
    return inTransaction(
      pool,
      async (client) => {
        // After the lock, in a statement of its own: its snapshot sees the runs the previous holder
        // committed. The checks and the insert are one statement; the insert happens only if they pass.
        let row: CreateRow | undefined;
        try {
          [row] = await run<CreateRow>(client, this.sql.checkAndInsert, [
            runId,
            appName,
            userId,
            sessionId,
            request,
            params.exclusive === true,
          ]);
        } catch (error) {
          // 23503: the session was deleted after the check (deletes do not take the lock).
          if ((error as { code?: unknown }).code === '23503') throw missingRunSessionError(runId, params);
          throw error;
        }
        if (row?.taken) throw runExistsError(runId);
        if (!row?.found) throw missingRunSessionError(runId, params);
        if (params.exclusive && row.active !== null) throw sessionBusyError(runId, params, row.active);
        // No row: a create for another session (not under this lock) took the id after the check.
        if (row.run_id === null) throw runExistsError(runId);
        return runFromRow(row);
      },
      {
        action: `creating run '${runId}' for session '${sessionId}'`,
        ifCommitLost: 'Read it back with getRun before creating it again.',
        // The transaction and the session's lock in one round trip.
        begin: (client) => `BEGIN; SELECT pg_advisory_xact_lock(hashtextextended(${client.escapeLiteral(lockKey)}, 0))`,
      },
    );
  }

  async get(db: Db, runId: string): Promise<RunRecord | undefined> {
    const [row] = await run<RunRow>(db, this.sql.select, [runId]);
    return row && runFromRow(row);
  }

  async list(db: Db, filter: RunFilter): Promise<RunRecord[]> {
    const limit = runListLimit(filter.limit) ?? null;
    const statuses = filter.statuses ? [...filter.statuses] : null;
    const { session } = filter;
    const rows = session
      ? await run<RunRow>(db, this.sql.listSession, [
          session.appName,
          session.userId,
          session.sessionId,
          statuses,
          limit,
        ])
      : statuses === null
        ? await run<RunRow>(db, this.sql.listAll, [limit])
        : await run<RunRow>(db, this.sql.listByStatus, [statuses, limit]);
    return rows.map(runFromRow);
  }

  /** One conditional UPDATE (see `RunRecordStore.updateRun`). */
  async update(db: Db, runId: string, update: RunUpdate, condition: RunCondition = {}): Promise<RunRecord | undefined> {
    const changes = encodeRunUpdate(runId, update);
    const [row] = await run<RunRow>(db, this.sql.update, [
      runId,
      changes.status,
      changes.attempts,
      changes.cancelRequested,
      changes.request,
      changes.setError,
      changes.error,
      condition.status ? [...condition.status] : null,
      condition.attempts ?? null,
    ]);
    return row && runFromRow(row);
  }
}

function buildRunQueries(schema: string) {
  const s = quoteIdentifier(schema);
  const query = queryNamer(schema);
  const ms = (column: string) => `floor(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`;
  // bigint and timestamps as float8, which pg hands over as JavaScript numbers.
  const columns = `run_id, app_name, user_id, session_id, status, attempts, cancel_requested, request, error, seq::float8 AS seq, ${ms('created_at')}, ${ms('updated_at')}`;
  const session = 'app_name = $1 AND user_id = $2 AND session_id = $3';
  // The statuses are constants of core, so they can be written into the SQL, where the planner sees them.
  const active = ACTIVE_RUN_STATUSES.map((status) => `'${status}'`).join(', ');
  return {
    // $1 run id, $2 app, $3 user, $4 session, $5 request, $6 exclusive: the checks, and the insert
    // when they pass (the id is free, the session exists, and, when exclusive, no run is active).
    checkAndInsert: query(
      'runs_check_insert',
      `WITH checked AS (
         SELECT EXISTS (SELECT 1 FROM ${s}.runs WHERE run_id = $1) AS taken,
           EXISTS (SELECT 1 FROM ${s}.sessions WHERE app_name = $2 AND user_id = $3 AND id = $4) AS found,
           (SELECT run_id FROM ${s}.runs WHERE app_name = $2 AND user_id = $3 AND session_id = $4 AND status IN (${active}) ORDER BY seq LIMIT 1) AS active),
       inserted AS (
         INSERT INTO ${s}.runs (run_id, app_name, user_id, session_id, status, attempts, cancel_requested, request, error, created_at, updated_at)
         SELECT $1, $2, $3, $4, 'pending', 0, false, $5, NULL, t, t FROM clock_timestamp() AS t, checked
         WHERE NOT checked.taken AND checked.found AND (NOT $6::boolean OR checked.active IS NULL)
         ON CONFLICT (run_id) DO NOTHING RETURNING ${columns})
       SELECT checked.taken, checked.found, checked.active AS active, inserted.* FROM checked LEFT JOIN inserted ON true`,
    ),
    select: query('runs_select', `SELECT ${columns} FROM ${s}.runs WHERE run_id = $1`),
    // One statement per shape of filter, so each plan can use its index. A NULL limit is no limit.
    listSession: query(
      'runs_list_session',
      `SELECT ${columns} FROM ${s}.runs WHERE ${session} AND ($4::text[] IS NULL OR status = ANY($4::text[])) ORDER BY seq LIMIT $5`,
    ),
    listByStatus: query(
      'runs_list_status',
      `SELECT ${columns} FROM ${s}.runs WHERE status = ANY($1::text[]) ORDER BY seq LIMIT $2`,
    ),
    listAll: query('runs_list_all', `SELECT ${columns} FROM ${s}.runs ORDER BY seq LIMIT $1`),
    // $1 run id; $2-$5 new status, attempts, cancel flag, request (NULL: unchanged); $6 whether to
    // write the error, $7 the error; $8/$9 the condition (NULL: any). Compare-and-set in one
    // statement: of two writers racing on one run, the second re-checks the WHERE against the
    // first one's committed row and no longer matches.
    update: query(
      'runs_update',
      `UPDATE ${s}.runs SET status = COALESCE($2::text, status), attempts = COALESCE($3::integer, attempts),
         cancel_requested = COALESCE($4::boolean, cancel_requested), request = COALESCE($5::text, request),
         error = CASE WHEN $6::boolean THEN $7::text ELSE error END, updated_at = clock_timestamp()
       WHERE run_id = $1 AND ($8::text[] IS NULL OR status = ANY($8::text[])) AND ($9::integer IS NULL OR attempts = $9::integer)
       RETURNING ${columns}`,
    ),
  };
}
