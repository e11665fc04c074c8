import { encodeRunRequest, encodeRunUpdate, runFromRow, runListLimit, type RunRow } from '../stores/run-codec.js';
import { missingRunSessionError, runExistsError, sessionBusyError } from '../stores/store-errors.js';
import {
  ACTIVE_RUN_STATUSES,
  type CreateRunParams,
  type RunCondition,
  type RunFilter,
  type RunRecord,
  type RunUpdate,
} from './run-records.js';
import type { SessionKey } from './session.js';

const ACTIVE = new Set<string>(ACTIVE_RUN_STATUSES);

/**
 * The run records of an `InMemorySessionService`. Rows are kept as the SQL stores keep them (the
 * request and the error as JSON text) and decoded by the same code, so every read returns new
 * objects and the records match the other stores field for field. Each call runs to completion
 * without awaiting, so the exclusive check and the insert are one step.
 */
export class InMemoryRuns {
  // Insertion order is creation order, which is seq order.
  private readonly rows = new Map<string, RunRow>();
  /** Run ids of each session, oldest first: the exclusive check and a session's listing read only these. */
  private readonly bySession = new Map<string, string[]>();
  private lastSeq = 0;

  /** Stores a new pending run (see `RunRecordStore.createRun`); `sessionExists` is the caller's lookup. */
  create(params: CreateRunParams, sessionExists: boolean): RunRecord {
    const { runId } = params;
    if (this.rows.has(runId)) throw runExistsError(runId);
    if (!sessionExists) throw missingRunSessionError(runId, params);
    const request = encodeRunRequest(runId, params.request);
    const key = keyOf(params);
    const ids = this.bySession.get(key) ?? [];
    if (params.exclusive) {
      const active = ids.find((id) => ACTIVE.has(this.rows.get(id)!.status));
      if (active !== undefined) throw sessionBusyError(runId, params, active);
    }
    const now = Date.now();
    const row: RunRow = {
      run_id: runId,
      app_name: params.appName,
      user_id: params.userId,
      session_id: params.sessionId,
      status: 'pending',
      attempts: 0,
      cancel_requested: false,
      request,
      error: null,
      seq: ++this.lastSeq,
      created_at: now,
      updated_at: now,
    };
    this.rows.set(runId, row);
    ids.push(runId);
    this.bySession.set(key, ids);
    return runFromRow(row);
  }

  get(runId: string): RunRecord | undefined {
    const row = this.rows.get(runId);
    return row && runFromRow(row);
  }

  list(filter: RunFilter): RunRecord[] {
    const limit = runListLimit(filter.limit) ?? Infinity;
    const statuses = filter.statuses && new Set<string>(filter.statuses);
    const ids = filter.session ? (this.bySession.get(keyOf(filter.session)) ?? []) : this.rows.keys();
    const runs: RunRecord[] = [];
    for (const id of ids) {
      if (runs.length >= limit) break;
      const row = this.rows.get(id)!;
      if (!statuses || statuses.has(row.status)) runs.push(runFromRow(row));
    }
    return runs;
  }

  update(runId: string, update: RunUpdate, condition: RunCondition = {}): RunRecord | undefined {
    // Encoded first, as the SQL stores do: a request that is not JSON fails whether or not the run matches.
    const changes = encodeRunUpdate(runId, update);
    const row = this.rows.get(runId);
    if (!row) return undefined;
    if (condition.status && !condition.status.some((status) => status === row.status)) return undefined;
    if (condition.attempts !== undefined && condition.attempts !== row.attempts) return undefined;
    if (changes.status !== null) row.status = changes.status;
    if (changes.attempts !== null) row.attempts = changes.attempts;
    if (changes.cancelRequested !== null) row.cancel_requested = changes.cancelRequested;
    if (changes.request !== null) row.request = changes.request;
    if (changes.setError) row.error = changes.error;
    row.updated_at = Date.now();
    return runFromRow(row);
  }

  /** Forgets the runs of a deleted session. */
  deleteSession(key: SessionKey): void {
    const k = keyOf(key);
    for (const id of this.bySession.get(k) ?? []) this.rows.delete(id);
    this.bySession.delete(k);
  }
}

function keyOf(key: SessionKey): string {
  return `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;
}
