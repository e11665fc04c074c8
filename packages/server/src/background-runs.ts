import type { Content, Event, RunError, RunRecordStatus } from '@troupe/core';

// The part of `@troupe/queue`'s RunQueue the server uses, written out structurally so that the
// server does not depend on the queue (nor on BullMQ and Redis) at runtime: a RunQueue fits it
// as it is, and a test or another queue can implement it.

/** What happens when a session already has a pending or running run. */
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt';

/** One background run to enqueue: a user turn for a worker. */
export interface BackgroundRunParams {
  appName: string;
  userId: string;
  sessionId: string;
  /** The user's message. Optional when `input` is given. */
  newMessage?: Content | string;
  /** A structured input for the agent (`ctx.input`). */
  input?: Record<string, unknown>;
  /** State written together with the user's message. */
  stateDelta?: Record<string, unknown>;
  /** Partial text events while the model streams. @default false */
  streaming?: boolean;
  /** With a run already pending or running on the session. @default 'reject' (409 `SESSION_BUSY`) */
  multitaskStrategy?: MultitaskStrategy;
  /** The run's id, also its invocation id. @default a generated id */
  runId?: string;
}

/** Answers for a background run that paused for a human: it goes back on the queue. */
export interface BackgroundResumeParams {
  runId: string;
  /** Answers by interrupt id. */
  responses: Record<string, unknown>;
  /** @default false */
  streaming?: boolean;
}

/** Where a background run is. Times are milliseconds since the epoch. */
export interface BackgroundRunInfo {
  runId: string;
  appName: string;
  userId: string;
  sessionId: string;
  status: RunRecordStatus;
  /** How many times a worker took the run. */
  attempts: number;
  error?: RunError;
  createdAt: number;
  updatedAt: number;
}

/** One frame of a run's live stream: `id` is what a client sends back as `Last-Event-ID`. */
export interface BackgroundStreamEntry {
  id: string;
  event: Event;
}

/** How to follow a run. */
export interface BackgroundJoinOptions {
  /** Continue after this entry id: every later frame comes exactly once. */
  lastEventId?: string;
  /** Stops following the run (the run itself goes on). */
  signal?: AbortSignal;
}

/** A run started on a timer. Exactly one of `pattern` and `everyMs`. */
export interface BackgroundScheduleParams {
  /** Creating a schedule with an existing id replaces it. @default a generated id */
  id?: string;
  appName: string;
  userId: string;
  /** Run every tick in this session. @default a new session per tick */
  sessionId?: string;
  newMessage?: Content | string;
  input?: Record<string, unknown>;
  /** A cron pattern, e.g. `'0 9 * * 1-5'`. */
  pattern?: string;
  /** Time zone of `pattern` (IANA name). */
  tz?: string;
  /** Run every this many milliseconds. */
  everyMs?: number;
  /** @default 'enqueue' */
  multitaskStrategy?: MultitaskStrategy;
}

/** A schedule as stored. `next` is when the next tick is due (ms since the epoch), when known. */
export interface BackgroundScheduleInfo extends Omit<BackgroundScheduleParams, 'id' | 'multitaskStrategy'> {
  id: string;
  multitaskStrategy: MultitaskStrategy;
  next?: number;
}

/**
 * The background-run queue createApp's `queue` option takes: `@troupe/queue`'s `RunQueue`. With
 * it, runs execute on worker processes and the HTTP routes enqueue and follow them.
 */
export interface BackgroundRuns {
  /** Refuses a busy session (`SESSION_BUSY`), a taken run id (`INVOCATION_EXISTS`), an unknown session (`SESSION_NOT_FOUND`). */
  enqueue(params: BackgroundRunParams): Promise<BackgroundRunInfo>;
  /** Puts a paused (`'interrupted'`) run back on the queue with answers. */
  resume(params: BackgroundResumeParams): Promise<BackgroundRunInfo>;
  /** The run's events live, partial ones included; ends when the run ends or pauses. */
  join(runId: string, options?: BackgroundJoinOptions): AsyncIterable<BackgroundStreamEntry>;
  /** Rejects with code `RUN_NOT_FOUND` for an unknown run. */
  status(runId: string): Promise<BackgroundRunInfo>;
  /** The runs of one session, oldest first. */
  list(session: { appName: string; userId: string; sessionId: string }): Promise<BackgroundRunInfo[]>;
  cancel(runId: string): Promise<BackgroundRunInfo>;
  schedule(params: BackgroundScheduleParams): Promise<BackgroundScheduleInfo>;
  listSchedules(appName: string): Promise<BackgroundScheduleInfo[]>;
  getSchedule(id: string): Promise<BackgroundScheduleInfo | undefined>;
  removeSchedule(id: string): Promise<boolean>;
}
