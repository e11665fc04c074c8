import { randomUUID } from 'node:crypto';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import {
  type Event,
  InvocationExistsError,
  LeaseLostError,
  RunCancelledError,
  RunDrainedError,
  type Runner,
  type RunResult,
  SessionBusyError,
  TroupeError,
} from '@troupe/core';
import {
  type RunError,
  type RunRecord,
  type RunRecordingSessionService,
  type RunRecordStatus,
} from '@troupe/core/stores';
import { DelayedError, type Job, WaitingError } from 'bullmq';
import type { Redis } from 'ioredis';
import { abandonRun } from './abandon-run.js';
import type { RunJobData } from './jobs.js';
import type { RedisKeys } from './keys.js';
import { runInfo } from './run-info.js';
import { runIdOf } from './run-keys.js';
import type { RunReport } from './run-report.js';
import { type StoredRequest, storedRequestOf } from './run-request.js';
import { RunStreamWriter, type StreamTtls } from './run-stream-writer.js';

/** What processing a run's job needs from its worker. */
export interface RunJobContext {
  store: RunRecordingSessionService;
  redis: Redis;
  keys: RedisKeys;
  ttls: StreamTtls;
  runnerFor(appName: string): Runner | undefined;
  /** Runs in progress on this worker, by key (see run-keys.ts): a cancel or a drain aborts them. */
  active: Map<string, { controller: AbortController; runId: string }>;
  /** Takeovers allowed after crashes before the run is abandoned. */
  maxStalledCount: number;
  /** The lease the worker's runners take (their lockDurationMs). */
  leaseTtlMs: number;
  /** Moves the session's next waiting run to the front once this one ended. */
  promoteNext(run: RunRecord): Promise<void>;
  onError(error: unknown, runId: string): void;
  /** What happened to a run, for the worker's log. */
  report(report: RunReport): void;
}

/** How long a run waits before looking again when the session is busy or an earlier run goes first. */
const WAIT_FOR_TURN_MS = 1_000;
const WAIT_FOR_LEASE_MS = 250;

/**
 * Processes one run's job: takes the run (compare-and-set on its record, so two workers never both
 * run it), runs or resumes the invocation, publishes every event, and records how it ended. Only
 * the session store says what happened; a job that comes again (a crash, the sweeper) finds the
 * record and does only what is left.
 */
export async function processRunJob(ctx: RunJobContext, job: Job<RunJobData>, token: string): Promise<void> {
  // The job names the run's key; the run id callers know (the invocation id) is in its record.
  const key = job.data.runId;
  const { record, earlier } = await runInTurn(ctx.store, job.data);
  // Deleted with its session, or already over (a duplicate job): nothing to do.
  if (!record) return;
  const runId = runIdOf(record);
  if (earlier) return waitAndRetry(job, token, WAIT_FOR_TURN_MS);

  const runner = ctx.runnerFor(record.appName);
  if (!runner)
    return fail(ctx, record, {
      code: 'APP_NOT_FOUND',
      message: `No app '${record.appName}' on this worker. Start the workers with the same apps as the API.`,
    });

  // Taken before, never finished: its worker died (or froze). Too many times, and it is abandoned.
  if (record.status === 'running' && record.attempts > ctx.maxStalledCount) {
    const done = await abandonRun(ctx, record, runner.agent.name);
    if (!done) return waitAndRetry(job, token, WAIT_FOR_LEASE_MS);
    if (done !== true) ctx.report({ kind: 'abandoned', run: runInfo(done) });
    await ctx.promoteNext(record);
    return;
  }

  const request = storedRequestOf(runId, record.request);
  const controller = new AbortController();
  ctx.active.set(key, { controller, runId });
  try {
    let started: Started;
    try {
      started = await start(runner, record, request, controller.signal);
    } catch (error) {
      // Another owner holds the session: a dead attempt's lease that has not expired yet, or a run
      // started outside the queue. Nothing was stored; look again shortly.
      if (error instanceof SessionBusyError) return await waitAndRetry(job, token, WAIT_FOR_LEASE_MS);
      // Misuse the runner refuses before storing anything (open interrupts, bad answers, unknown session).
      return await fail(ctx, record, errorOf(error));
    }
    const attempt = record.attempts + 1;
    const claimed = await ctx.store.updateRun(
      key,
      { status: 'running', attempts: attempt },
      { status: [record.status], attempts: record.attempts },
    );
    if (!claimed) {
      // A cancel or another worker got there first; give the session back untouched.
      await started.events.return(undefined as never);
      return;
    }
    const startedAt = Date.now();
    const took = () => Date.now() - startedAt;
    ctx.report({ kind: 'started', run: runInfo(claimed), takeover: record.status === 'running' });
    if (claimed.cancelRequested) controller.abort(new RunCancelledError(`Run '${runId}' was cancelled.`));
    const writer = new RunStreamWriter(
      ctx.redis,
      ctx.keys,
      key,
      `${attempt}:${randomUUID()}`,
      ctx.ttls,
      (reason) => controller.abort(new LeaseLostError(`This worker lost run '${runId}': ${reason}.`)),
      (error) => ctx.onError(error, runId),
    );
    await writer.claim();
    if (started.continuing) await republishStored(ctx, writer, claimed);
    const ending = await drive(started.events, writer);
    if (ending.status === 'drained') {
      ctx.report({ kind: 'drained', run: runInfo(claimed), durationMs: took() });
      return await handBack(ctx, job, token, claimed);
    }
    if (ending.status === 'lost') {
      ctx.report({ kind: 'lost', run: runInfo(claimed), durationMs: took() });
      return;
    }
    await writer.flush();
    const ended = await ctx.store.updateRun(
      key,
      { status: ending.status, error: ending.error ?? null },
      { status: ['running'], attempts: attempt },
    );
    // Only the attempt that still owns the run says how it ended.
    if (ended) {
      ctx.report({ kind: 'ended', run: runInfo(ended), durationMs: took() });
      await writer.end(ending.status).catch((error: unknown) => ctx.onError(error, runId));
      await ctx.promoteNext(ended);
    }
  } finally {
    ctx.active.delete(key);
  }
}

/**
 * The job's run if it is still to run (pending, or running when taken over), and whether an earlier
 * run of its session is too (it goes first). One read of the session's active runs when the job
 * names the session, else the run's record first.
 */
async function runInTurn(
  store: RunRecordingSessionService,
  data: RunJobData,
): Promise<{ record?: RunRecord; earlier: boolean }> {
  let session = data.session;
  if (!session) {
    const record = await store.getRun(data.runId);
    if (!record || !ACTIVE_RUN_STATUSES.includes(record.status)) return { earlier: false };
    session = { appName: record.appName, userId: record.userId, sessionId: record.sessionId };
  }
  const active = await store.listRuns({ session, statuses: ACTIVE_RUN_STATUSES });
  const record = active.find((r) => r.runId === data.runId);
  if (!record) return { earlier: false };
  return { record, earlier: active.some((r) => r.seq < record.seq) };
}

interface Started {
  events: AsyncGenerator<Event, RunResult, undefined>;
  /** The invocation is already in the session (a crash-resume or a resume with answers). */
  continuing: boolean;
}

async function start(
  runner: Runner,
  record: RunRecord,
  request: StoredRequest,
  abortSignal: AbortSignal,
): Promise<Started> {
  const { userId, sessionId } = record;
  const invocationId = runIdOf(record);
  const runConfig = { streaming: request.streaming ? ('sse' as const) : ('none' as const) };
  if (request.kind === 'resume') {
    // Taken over after a crash, the answers may already be stored: continue without them then.
    if (record.status === 'running') {
      try {
        return {
          events: await runner.startResume({ userId, sessionId, invocationId, runConfig, abortSignal }),
          continuing: true,
        };
      } catch (error) {
        if (error instanceof SessionBusyError) throw error;
      }
    }
    return {
      events: await runner.startResume({
        userId,
        sessionId,
        invocationId,
        responses: request.responses,
        runConfig,
        abortSignal,
      }),
      continuing: true,
    };
  }
  try {
    const { newMessage, input, stateDelta } = request;
    return {
      events: await runner.start({
        userId,
        sessionId,
        invocationId,
        runConfig,
        abortSignal,
        ...(newMessage !== undefined ? { newMessage } : {}),
        ...(input !== undefined ? { input } : {}),
        ...(stateDelta !== undefined ? { stateDelta } : {}),
      }),
      continuing: false,
    };
  } catch (error) {
    // The invocation started on a worker that died: continue it, finished steps are not repeated.
    if (!(error instanceof InvocationExistsError)) throw error;
    return {
      events: await runner.startResume({ userId, sessionId, invocationId, runConfig, abortSignal }),
      continuing: true,
    };
  }
}

type Ending = { status: RunRecordStatus; error?: RunError } | { status: 'drained' } | { status: 'lost' };

/**
 * Runs the invocation, publishing each event. An error event is held back until the run says why it
 * stopped: when this worker lost the session, that event was not stored and is not published.
 */
async function drive(events: AsyncGenerator<Event, RunResult, undefined>, writer: RunStreamWriter): Promise<Ending> {
  let held: Event | undefined;
  try {
    for (;;) {
      const step = await events.next();
      if (held) writer.publish(held);
      held = undefined;
      if (step.done) return { status: step.value.status === 'interrupted' ? 'interrupted' : 'completed' };
      if (step.value.errorCode !== undefined) held = step.value;
      else writer.publish(step.value);
    }
  } catch (error) {
    if (error instanceof RunDrainedError) return { status: 'drained' };
    if (error instanceof LeaseLostError) return { status: 'lost' };
    if (held) writer.publish(held);
    if (error instanceof RunCancelledError) return { status: 'cancelled', error: errorOf(error) };
    return { status: 'failed', error: errorOf(error) };
  }
}

/** After a takeover: the stored events of the invocation that the dead attempt did not get to publish. */
async function republishStored(ctx: RunJobContext, writer: RunStreamWriter, record: RunRecord): Promise<void> {
  const [published, session] = await Promise.all([
    writer.publishedEventIds(),
    ctx.store.getSession({ appName: record.appName, userId: record.userId, sessionId: record.sessionId }),
  ]);
  const invocationId = runIdOf(record);
  for (const event of session?.events ?? []) {
    // The user's message and answers are not part of the stream (as the runner does not yield them).
    if (event.invocationId === invocationId && event.author !== 'user' && !published.has(event.id))
      writer.publish(event);
  }
}

/** The worker is shutting down: the run goes back to waiting (this attempt not counted) for another worker. */
async function handBack(ctx: RunJobContext, job: Job<RunJobData>, token: string, record: RunRecord): Promise<void> {
  await ctx.store.updateRun(
    record.runId,
    { status: 'pending', attempts: record.attempts - 1 },
    { status: ['running'], attempts: record.attempts },
  );
  await job.moveToWait(token);
  throw new WaitingError();
}

async function fail(ctx: RunJobContext, record: RunRecord, error: RunError): Promise<void> {
  const failed = await ctx.store.updateRun(
    record.runId,
    { status: 'failed', error },
    { status: [record.status], attempts: record.attempts },
  );
  if (!failed) return;
  ctx.report({ kind: 'ended', run: runInfo(failed), durationMs: 0 });
  const runId = runIdOf(record);
  const writer = new RunStreamWriter(
    ctx.redis,
    ctx.keys,
    record.runId,
    `failed:${randomUUID()}`,
    ctx.ttls,
    () => undefined,
    (e) => ctx.onError(e, runId),
  );
  await writer.claim();
  await writer.end('failed').catch((e: unknown) => ctx.onError(e, runId));
  await ctx.promoteNext(failed);
}

async function waitAndRetry(job: Job<RunJobData>, token: string, ms: number): Promise<void> {
  await job.moveToDelayed(Date.now() + ms, token);
  throw new DelayedError();
}

export function errorOf(error: unknown): RunError {
  if (error instanceof TroupeError) return { code: error.code, message: error.message };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
