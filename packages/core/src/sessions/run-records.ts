import type { SessionKey, SessionService } from './session.js';

/**
 * Where a background run is (`@troupe/queue`, SPEC §13). `pending` waits for a worker, `running` is
 * on one; the others are final, except `interrupted`, which a resume turns back into `pending`.
 */
export type RunRecordStatus =
  'pending' | 'running' | 'completed' | 'interrupted' | 'failed' | 'cancelled' | 'abandoned';

/** Statuses of a run that holds its session's turn: a new run with `multitaskStrategy: 'reject'` is refused. */
export const ACTIVE_RUN_STATUSES: readonly RunRecordStatus[] = ['pending', 'running'];

/** Statuses after which nothing more happens to a run. */
export const FINAL_RUN_STATUSES: readonly RunRecordStatus[] = ['completed', 'failed', 'cancelled', 'abandoned'];

/** A run's error, as stored: the code of the `TroupeError` (or `'INTERNAL'`) and its message. */
export interface RunError {
  code: string;
  message: string;
}

/**
 * One background run (one invocation of a session) as the store keeps it. The session's events stay
 * the record of what the run did; this row only says where it is, so any replica can answer.
 */
export interface RunRecord extends SessionKey {
  /** Unique across the store; equals the invocation id and the queue's job id. */
  runId: string;
  status: RunRecordStatus;
  /** How many times a worker took the run; a crash-resume counts again, a resume after a pause starts at 0. */
  attempts: number;
  /** Set by a cancel; a worker that takes or holds the run stops it. */
  cancelRequested: boolean;
  /** What to run, as the queue wrote it (new message, state delta, resume answers): opaque JSON. */
  request: Record<string, unknown>;
  error?: RunError | undefined;
  /** Creation order across the store: runs of one session are taken in this order. */
  seq: number;
  /** Milliseconds since the epoch, on the store's clock. */
  createdAt: number;
  updatedAt: number;
}

export interface CreateRunParams extends SessionKey {
  runId: string;
  request: Record<string, unknown>;
  /**
   * Refuse with `SessionBusyError` when the session already has a `pending` or `running` run. The
   * check and the insert are one atomic step, so two replicas racing for one session cannot both win.
   */
  exclusive?: boolean;
}

/** Fields of a run to change; `error: null` clears the error. */
export interface RunUpdate {
  status?: RunRecordStatus;
  attempts?: number;
  cancelRequested?: boolean;
  request?: Record<string, unknown>;
  error?: RunError | null;
}

/** An update applies only when the stored run matches every field given (compare-and-set). */
export interface RunCondition {
  status?: readonly RunRecordStatus[];
  attempts?: number;
}

export interface RunFilter {
  /** Runs of one session. */
  session?: SessionKey;
  /** Only runs in one of these statuses. */
  statuses?: readonly RunRecordStatus[];
  /** At most this many, oldest first. */
  limit?: number;
}

/**
 * A {@link SessionService} that also keeps run records (an optional capability, like leases): the
 * SQLite, PostgreSQL and in-memory stores implement it. Deleting a session deletes its runs.
 */
export interface RunRecordStore {
  /**
   * Stores a new `pending` run with `attempts: 0`. Throws `InvocationExistsError` when `runId` is
   * taken, `SessionNotFoundError` when the session does not exist, and `SessionBusyError` when
   * `exclusive` and the session has an active run.
   */
  createRun(params: CreateRunParams): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  /** Runs matching the filter, in creation order (`seq`). */
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
  /**
   * Changes a run when it matches `condition`; returns the updated run, or undefined when there is
   * no such run or it did not match (another worker or a cancel got there first).
   */
  updateRun(runId: string, update: RunUpdate, condition?: RunCondition): Promise<RunRecord | undefined>;
}

export type RunRecordingSessionService = SessionService & RunRecordStore;

/** True when `service` keeps run records. */
export function supportsRunRecords(service: SessionService): service is RunRecordingSessionService {
  const s = service as Partial<RunRecordStore>;
  return (
    typeof s.createRun === 'function' &&
    typeof s.getRun === 'function' &&
    typeof s.listRuns === 'function' &&
    typeof s.updateRun === 'function'
  );
}
