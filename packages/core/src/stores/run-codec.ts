import { ConfigurationError } from '../errors.js';
import type { RunError, RunRecord, RunRecordStatus, RunUpdate } from '../sessions/run-records.js';
import { encodeJson } from './value-codec.js';

/**
 * A row of the `runs` table, as every store keeps it: the request and the error are JSON text. Text
 * holds any JSON (escaped NUL and lone surrogates included, which PostgreSQL's JSONB refuses), and
 * one decoder for all stores makes their records identical.
 */
export interface RunRow {
  run_id: string;
  app_name: string;
  user_id: string;
  session_id: string;
  status: string;
  attempts: number;
  /** SQLite has no boolean type: 0 or 1 there. */
  cancel_requested: boolean | number;
  request: string;
  error: string | null;
  seq: number;
  created_at: number;
  updated_at: number;
}

/** A new record built from a stored row: nothing in it is shared with the row. */
export function runFromRow(row: RunRow): RunRecord {
  const record: RunRecord = {
    runId: row.run_id,
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.session_id,
    status: row.status as RunRecordStatus,
    attempts: row.attempts,
    cancelRequested: Boolean(row.cancel_requested),
    request: JSON.parse(row.request) as Record<string, unknown>,
    seq: row.seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.error !== null) record.error = JSON.parse(row.error) as RunError;
  return record;
}

/** The request of run `runId` as stored; `ConfigurationError` when it is not JSON data. */
export function encodeRunRequest(runId: string, request: Record<string, unknown>): string {
  return encodeJson(request, () => `The request of run '${runId}'`);
}

/**
 * A {@link RunUpdate} as column values: `null` leaves a column as it is, except `error`, which is
 * written whenever `setError` is true (`null` then clears it).
 */
export interface RunChanges {
  status: RunRecordStatus | null;
  attempts: number | null;
  cancelRequested: boolean | null;
  request: string | null;
  setError: boolean;
  error: string | null;
}

/** Encodes `update` for run `runId` (see {@link RunChanges}). */
export function encodeRunUpdate(runId: string, update: RunUpdate): RunChanges {
  const error = update.error;
  return {
    status: update.status ?? null,
    attempts: update.attempts ?? null,
    cancelRequested: update.cancelRequested ?? null,
    request: update.request === undefined ? null : encodeRunRequest(runId, update.request),
    setError: error !== undefined,
    // Only the two fields of a RunError are kept, so every store returns the same object.
    error: error ? JSON.stringify({ code: error.code, message: error.message }) : null,
  };
}

/** `RunFilter.limit`, checked: a whole number >= 0, or undefined for no limit. */
export function runListLimit(limit: number | undefined): number | undefined {
  if (limit === undefined || (Number.isInteger(limit) && limit >= 0)) return limit;
  throw new ConfigurationError(
    `listRuns needs 'limit' as a whole number >= 0; got ${String(limit)}. Omit it to list every matching run.`,
  );
}
