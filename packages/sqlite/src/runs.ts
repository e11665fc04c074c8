import type Database from 'better-sqlite3';
import { type SessionKey } from '@troupe/core';
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
import type { Statement } from './statements.js';

const COLUMNS =
  'run_id, app_name, user_id, session_id, status, attempts, cancel_requested, request, error, seq, created_at, updated_at';
// The statuses are constants of core, so they can be written into the SQL, where the planner sees them.
const ACTIVE = ACTIVE_RUN_STATUSES.map((status) => `'${status}'`).join(', ');

/** The condition "status is in the JSON array of statuses bound to `param`". */
function inStatuses(param: string): string {
  return `status IN (SELECT value FROM json_each(${param}))`;
}

type Key = [appName: string, userId: string, sessionId: string];
interface ListParams {
  statuses: string | null;
  /** -1: no limit. */
  limit: number;
}
interface UpdateParams {
  runId: string;
  status: string | null;
  attempts: number | null;
  cancel: number | null;
  request: string | null;
  setError: number;
  error: string | null;
  now: number;
  ifStatuses: string | null;
  ifAttempts: number | null;
}

function prepareRunStatements(db: Database.Database) {
  const prepare = <P extends unknown[], R = unknown>(sql: string): Statement<P, R> => db.prepare<P, R>(sql);
  const key = 'app_name = ? AND user_id = ? AND session_id = ?';
  return {
    select: prepare<[string], RunRow>(`SELECT ${COLUMNS} FROM runs WHERE run_id = ?`),
    sessionExists: prepare<Key>('SELECT 1 FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?'),
    selectActive: prepare<Key, { run_id: string }>(
      `SELECT run_id FROM runs WHERE ${key} AND status IN (${ACTIVE}) ORDER BY seq LIMIT 1`,
    ),
    insert: prepare<[string, ...Key, string, number, number], RunRow>(
      `INSERT INTO runs (run_id, app_name, user_id, session_id, status, attempts, cancel_requested, request, error, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'pending', 0, 0, ?, NULL, ?, ?) RETURNING ${COLUMNS}`,
    ),
    // One statement per shape of filter, so each can use its index (a `? IS NULL OR` term cannot).
    listSession: prepare<[ListParams & { app: string; user: string; session: string }], RunRow>(
      `SELECT ${COLUMNS} FROM runs WHERE app_name = @app AND user_id = @user AND session_id = @session
       AND (@statuses IS NULL OR ${inStatuses('@statuses')}) ORDER BY seq LIMIT @limit`,
    ),
    listByStatus: prepare<[ListParams], RunRow>(
      `SELECT ${COLUMNS} FROM runs WHERE ${inStatuses('@statuses')} ORDER BY seq LIMIT @limit`,
    ),
    listAll: prepare<[number], RunRow>(`SELECT ${COLUMNS} FROM runs ORDER BY seq LIMIT ?`),
    // Compare-and-set in one statement: the condition is in the WHERE clause, so of two writers
    // racing on one run, the second sees the first one's write and no longer matches.
    update: prepare<[UpdateParams], RunRow>(
      `UPDATE runs SET status = COALESCE(@status, status), attempts = COALESCE(@attempts, attempts),
         cancel_requested = COALESCE(@cancel, cancel_requested), request = COALESCE(@request, request),
         error = CASE WHEN @setError THEN @error ELSE error END, updated_at = @now
       WHERE run_id = @runId AND (@ifStatuses IS NULL OR ${inStatuses('@ifStatuses')}) AND (@ifAttempts IS NULL OR attempts = @ifAttempts)
       RETURNING ${COLUMNS}`,
    ),
    deleteSessionRuns: prepare<Key>(`DELETE FROM runs WHERE ${key}`),
  };
}

/**
 * The run records of a `SqliteSessionService`, in the `runs` table (schema version 3). Callers run
 * each method under the service's storage guard; the clock is this process's, as for leases.
 */
export class SqliteRuns {
  private readonly sql: ReturnType<typeof prepareRunStatements>;
  private readonly createTransaction: Database.Transaction<
    (params: CreateRunParams, request: string, now: number) => RunRecord
  >;

  constructor(db: Database.Database) {
    this.sql = prepareRunStatements(db);
    this.createTransaction = db.transaction((params: CreateRunParams, request: string, now: number) =>
      this.createInTransaction(params, request, now),
    );
  }

  /** See `RunRecordStore.createRun`: the checks and the insert are one IMMEDIATE transaction. */
  create(params: CreateRunParams): RunRecord {
    const request = encodeRunRequest(params.runId, params.request);
    // IMMEDIATE takes the write lock before the checks, so two connections (or processes) cannot
    // both find the session free and both insert.
    return this.createTransaction.immediate(params, request, Date.now());
  }

  get(runId: string): RunRecord | undefined {
    const row = this.sql.select.get(runId);
    return row && runFromRow(row);
  }

  list(filter: RunFilter): RunRecord[] {
    const params: ListParams = {
      statuses: filter.statuses ? JSON.stringify(filter.statuses) : null,
      limit: runListLimit(filter.limit) ?? -1,
    };
    const { session } = filter;
    const rows = session
      ? this.sql.listSession.all({ ...params, app: session.appName, user: session.userId, session: session.sessionId })
      : params.statuses === null
        ? this.sql.listAll.all(params.limit)
        : this.sql.listByStatus.all(params);
    return rows.map(runFromRow);
  }

  update(runId: string, update: RunUpdate, condition: RunCondition = {}): RunRecord | undefined {
    const changes = encodeRunUpdate(runId, update);
    const row = this.sql.update.get({
      runId,
      status: changes.status,
      attempts: changes.attempts,
      cancel: changes.cancelRequested === null ? null : Number(changes.cancelRequested),
      request: changes.request,
      setError: Number(changes.setError),
      error: changes.error,
      now: Date.now(),
      ifStatuses: condition.status ? JSON.stringify(condition.status) : null,
      ifAttempts: condition.attempts ?? null,
    });
    return row && runFromRow(row);
  }

  /** Deletes the runs of a session; call it in the transaction that deletes the session. */
  deleteSession(key: SessionKey): void {
    this.sql.deleteSessionRuns.run(key.appName, key.userId, key.sessionId);
  }

  private createInTransaction(params: CreateRunParams, request: string, now: number): RunRecord {
    const { runId, appName, userId, sessionId } = params;
    if (this.sql.select.get(runId)) throw runExistsError(runId);
    if (!this.sql.sessionExists.get(appName, userId, sessionId)) throw missingRunSessionError(runId, params);
    if (params.exclusive) {
      const active = this.sql.selectActive.get(appName, userId, sessionId);
      if (active) throw sessionBusyError(runId, params, active.run_id);
    }
    return runFromRow(this.sql.insert.get(runId, appName, userId, sessionId, request, now, now)!);
  }
}
