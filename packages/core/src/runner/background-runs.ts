import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { SessionKey } from '../sessions/session.js';
import type { RunError, RunRecordStatus } from '../sessions/run-records.js';

// The contract of background runs (SPEC §13), here so that `@troupe/queue` implements it and
// `@troupe/server` serves any implementation of it without depending on the queue (nor on BullMQ
// and Redis) at runtime. Types only: nothing here costs an import.

/** What happens when a session already has a pending or running run. */
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt';

/** One background run: a user turn to run on a worker. */
export interface EnqueueParams {
  appName: string;
  userId: string;
  sessionId: string;
  /** The user's message. Optional when `input` is given. */
  newMessage?: Content | string;
  /** A structured input for the agent (`ctx.input`). */
  input?: Record<string, unknown>;
  /** State written together with the user's message. */
  stateDelta?: Record<string, unknown>;
  /** Stream the model's text as partial events (`runConfig.streaming: 'sse'`). @default false */
  streaming?: boolean;
  /**
   * With a run already pending or running on the session: `'reject'` refuses with
   * `SessionBusyError` (HTTP 409), `'enqueue'` runs this one after it (first in, first out per
   * session), `'interrupt'` cancels it and then runs this one.
   * @default 'reject'
   */
  multitaskStrategy?: MultitaskStrategy;
  /**
   * The run's id (1–128 characters of `A-Za-z0-9._-`), which is also its invocation id. One you
   * choose is yours within the session, as an invocation id is: another session (another user's)
   * may use the same; look it up with the session (`status(runId, session)`). A generated id is
   * unique everywhere.
   * @default a generated id
   */
  runId?: string;
}

/** Answers for a background run that paused for a human (an interrupt): it goes back on the queue. */
export interface EnqueueResumeParams {
  runId: string;
  /** The run's session: needed for a run id its caller chose (see `EnqueueParams.runId`). */
  session?: SessionKey;
  /** Answers by interrupt id, as `runner.resume` takes them. */
  responses: Record<string, unknown>;
  /** @default false */
  streaming?: boolean;
}

/** Where a run is, as any replica can tell from the session store. */
export interface RunInfo {
  runId: string;
  appName: string;
  userId: string;
  sessionId: string;
  status: RunRecordStatus;
  /** How many times a worker took the run (more than 1 after a worker crashed or froze). */
  attempts: number;
  error?: RunError;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/**
 * One frame of a run's live stream. `id` is the Redis stream entry id (the SSE `id:`; pass it back
 * as `lastEventId` to continue after it), or, once the stream has expired and the stored events are
 * replayed, the event's own id. Partial (streaming) events are included.
 */
export interface StreamEntry {
  id: string;
  event: Event;
}

export interface JoinOptions {
  /** Continue after this entry id (an SSE `Last-Event-ID`): every later frame comes exactly once. */
  lastEventId?: string;
  /** Stops following the run (the run itself goes on). */
  signal?: AbortSignal;
  /** The run's session: needed for a run id its caller chose (see `EnqueueParams.runId`). */
  session?: SessionKey;
  /**
   * Told how the run ended when its stream says so (`completed`, `failed`, `cancelled` or
   * `abandoned`), just before the join ends, so a caller that needs the ending need not read the run
   * again. Not called for a pause, nor when the stream does not hold the ending (a replay of the
   * stored events after it expired).
   */
  onEnd?: (status: RunRecordStatus) => void;
}

/** A run started on a timer, by every worker together: each tick runs once. */
export interface ScheduleParams {
  /** The schedule's id (1–64 characters of `A-Za-z0-9._-`). Creating one with an existing id replaces it. @default a generated id */
  id?: string;
  appName: string;
  userId: string;
  /** Run every tick in this session. @default a new session per tick */
  sessionId?: string;
  newMessage?: Content | string;
  input?: Record<string, unknown>;
  /** A cron pattern (`'0 9 * * 1-5'`, with seconds as an optional first field). Exactly one of `pattern` and `everyMs`. */
  pattern?: string;
  /** Time zone of `pattern` (an IANA name such as `'Europe/Paris'`). @default the worker's */
  tz?: string;
  /** Run every this many milliseconds (at least 1000). */
  everyMs?: number;
  /** When a tick finds the session's previous run still going. @default 'enqueue' */
  multitaskStrategy?: MultitaskStrategy;
}

/** A schedule as stored. */
export interface ScheduleInfo extends Omit<ScheduleParams, 'id' | 'multitaskStrategy'> {
  id: string;
  multitaskStrategy: MultitaskStrategy;
  /** When the next tick is due (ms since the epoch), when known. */
  next?: number;
}

/**
 * Background runs on worker processes: `@troupe/queue`'s `RunQueue` implements it, and
 * `createApp({ queue })` serves it over HTTP.
 */
export interface BackgroundRuns {
  /** Refuses a busy session (`SessionBusyError`), a taken run id (`InvocationExistsError`), an unknown session (`SessionNotFoundError`). */
  enqueue(params: EnqueueParams): Promise<RunInfo>;
  /** Puts a paused (`'interrupted'`) run back on the queue with answers. */
  resume(params: EnqueueResumeParams): Promise<RunInfo>;
  /** The run's events live, partial ones included; ends when the run ends or pauses. */
  join(runId: string, options?: JoinOptions): AsyncIterable<StreamEntry>;
  /**
   * Rejects with code `RUN_NOT_FOUND` for an unknown run, and for one outside `session` when it is
   * given (a run id its caller chose is found only with its session).
   */
  status(runId: string, session?: SessionKey): Promise<RunInfo>;
  /** The runs of one session, oldest first. */
  list(session: SessionKey): Promise<RunInfo[]>;
  /** Stops the run; `session` as for `status`. */
  cancel(runId: string, session?: SessionKey): Promise<RunInfo>;
  /**
   * Resolves when the queue answers within its bound, with the number of workers that showed a sign
   * of life lately; rejects with code `QUEUE_UNAVAILABLE` at once when it does not. Optional: when
   * present, the server reports it in `/health` and checks it before a stream starts.
   */
  checkHealth?(): Promise<{ workers: number }>;
  schedule(params: ScheduleParams): Promise<ScheduleInfo>;
  listSchedules(appName: string): Promise<ScheduleInfo[]>;
  getSchedule(id: string): Promise<ScheduleInfo | undefined>;
  /** True when a schedule was removed. */
  removeSchedule(id: string): Promise<boolean>;
}
