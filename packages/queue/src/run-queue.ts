import { randomUUID } from 'node:crypto';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import { ConfigurationError, InvocationExistsError, type SessionKey, type SessionService } from '@troupe/core';
import { type BackgroundRuns, checkResponses, openInterrupts } from '@troupe/core/hosting';
import { type RunRecord, type RunRecordingSessionService } from '@troupe/core/stores';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueUnavailableError, RunNotFoundError } from './errors.js';
import { ensureJob, type QueueJobData, queueOptions, type RunJobData } from './jobs.js';
import { QUEUE_NAME, RedisKeys } from './keys.js';
import { openRedis, type RedisConnection } from './redis-connection.js';
import { RedisGate, waitUntilReady } from './redis-gate.js';
import { StreamReaders } from './stream-readers.js';
import { JustQueued } from './just-queued.js';
import { runInfo } from './run-info.js';
import { cancelRun } from './cancel-run.js';
import { findRun, runExists } from './find-run.js';
import { msOption, prefixOf, runRecordStore } from './queue-settings.js';
import { runIdOf, scopedRunKey } from './run-keys.js';
import { checkRunId, checkSessionKey, runRequestOf, strategyOf } from './run-request.js';
import { followStream, STREAM_ID } from './run-stream-reader.js';
import { Schedules } from './schedules.js';
import { type UntakenListener, UntakenWatch } from './untaken-watch.js';
import { workersSeen } from './worker-presence.js';
import type {
  EnqueueParams,
  EnqueueResumeParams,
  JoinOptions,
  RunInfo,
  ScheduleInfo,
  ScheduleParams,
  StreamEntry,
} from '@troupe/core/hosting';

export interface RunQueueOptions {
  /** Redis: a `redis://` URL, ioredis options, or an ioredis client (then not closed by `close`). */
  redis: RedisConnection;
  /** The session store the workers use; it keeps the run records (SQLite, PostgreSQL, or in-memory for one process). */
  sessionService: SessionService;
  /** Prefix of every Redis key; the workers must use the same. @default 'troupe' */
  prefix?: string;
  /**
   * How long a call waits for Redis (to connect, or to answer) before it fails with
   * `QueueUnavailableError` (HTTP 503). While the connection is down, calls fail at once.
   * @default 5000
   */
  redisTimeoutMs?: number;
  /**
   * Told once of each run this queue put on the queue (or resumed) that no worker has taken
   * `untakenAfterMs` later, with the number of workers seen lately: none runs, or all are busy.
   */
  onUntaken?: UntakenListener;
  /** See `onUntaken`. @default 10000 */
  untakenAfterMs?: number;
}

/**
 * The API side of background runs (SPEC §13): puts runs on the queue, follows their live events,
 * tells their status and cancels them, from any replica. The session store stays the record of what
 * a run did; Redis holds the jobs and the live streams.
 *
 * @example
 * const queue = new RunQueue({ redis: 'redis://127.0.0.1:6379', sessionService });
 * const { runId } = await queue.enqueue({ appName: 'helpdesk', userId: 'u1', sessionId: 's1', newMessage: 'Hi' });
 * for await (const { event } of queue.join(runId)) console.log(event.author, event.content);
 */
export class RunQueue implements BackgroundRuns {
  readonly sessionService: RunRecordingSessionService;
  private readonly redis: Redis;
  private readonly ownsRedis: boolean;
  private readonly keys: RedisKeys;
  private readonly bull: Queue<QueueJobData>;
  private readonly schedules: Schedules;
  private readonly readers: StreamReaders;
  private readonly justQueued = new JustQueued();
  private readonly gate: RedisGate;
  private readonly untaken: UntakenWatch | undefined;

  constructor(options: RunQueueOptions) {
    this.sessionService = runRecordStore(options.sessionService, 'RunQueue');
    const timeoutMs = msOption(options.redisTimeoutMs, 'redisTimeoutMs', 5_000, 1);
    const untakenAfterMs = msOption(options.untakenAfterMs, 'untakenAfterMs', 10_000, 1);
    if (options.onUntaken !== undefined && typeof options.onUntaken !== 'function')
      throw new ConfigurationError(`RunQueue: onUntaken must be a function; got ${typeof options.onUntaken}.`);
    const { client, shared } = openRedis(options.redis, 'RunQueue', 'api');
    this.redis = client;
    this.ownsRedis = !shared;
    this.gate = new RedisGate(client, timeoutMs);
    this.readers = new StreamReaders(client);
    this.keys = new RedisKeys(prefixOf(options.prefix, 'RunQueue'));
    this.bull = new Queue<QueueJobData>(QUEUE_NAME, queueOptions(client, this.keys.prefix));
    // Each call that Redis fails rejects for its caller (QueueUnavailableError), and the gate keeps the
    // connection's last error for checkHealth: BullMQ's copy of it as an event would only be printed.
    this.bull.on('error', () => undefined);
    this.schedules = new Schedules(this.bull);
    this.untaken = options.onUntaken
      ? new UntakenWatch({
          afterMs: untakenAfterMs,
          onUntaken: options.onUntaken,
          current: (key) => this.sessionService.getRun(key),
          workers: () =>
            this.checkHealth().then(
              ({ workers }) => workers,
              () => undefined,
            ),
        })
      : undefined;
  }

  /**
   * Records a run as `pending` and puts it on the queue. With another run pending or running on the
   * session, `multitaskStrategy` decides: `'reject'` throws `SessionBusyError` (nothing stored),
   * `'enqueue'` runs this one after it, `'interrupt'` cancels it first. A `runId` you choose is
   * yours within the session: one it already holds throws `InvocationExistsError`.
   */
  async enqueue(params: EnqueueParams): Promise<RunInfo> {
    const request = runRequestOf(params);
    const strategy = strategyOf(params.multitaskStrategy, 'enqueue');
    const key = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
    // With Redis away the run could not be queued: refuse before storing anything.
    await this.gate.check('queue a run');
    if (strategy === 'interrupt') {
      for (const active of await this.sessionService.listRuns({ session: key, statuses: ACTIVE_RUN_STATUSES }))
        await this.cancelRecord(active);
    }
    const chosen = params.runId;
    if (chosen !== undefined && (await findRun(this.sessionService, chosen, key))) throw runExists(chosen, key);
    const record = await this.sessionService
      .createRun({
        ...key,
        runId: chosen === undefined ? `run-${randomUUID()}` : scopedRunKey(key, chosen),
        request: chosen === undefined ? request : { ...request, invocationId: chosen },
        exclusive: strategy === 'reject',
      })
      .catch((error: unknown) => {
        // Taken by a request racing this one (the store's message would name the key, not the id).
        throw error instanceof InvocationExistsError && chosen !== undefined ? runExists(chosen, key) : error;
      });
    await this.putOnQueue(record);
    this.justQueued.keep(record);
    this.untaken?.watch(record);
    return runInfo(record);
  }

  /** Puts a run that paused for a human back on the queue with the answers; it continues the same invocation. */
  async resume(params: EnqueueResumeParams): Promise<RunInfo> {
    checkRunId(params.runId);
    if (typeof params.responses !== 'object' || params.responses === null || Array.isArray(params.responses)) {
      throw new ConfigurationError(
        `resume of run '${params.runId}' needs responses: { '<interrupt id>': answer }; got ${JSON.stringify(params.responses)}.`,
      );
    }
    await this.gate.check(`resume run '${params.runId}'`);
    const current = await this.record(params.runId, params.session);
    // Checked here as the runner checks them: an answer its worker refused would fail the run, and
    // the question could never be answered again. A wrong one is refused; the run stays paused.
    if (current.status === 'interrupted') await this.checkAnswers(current, params.responses);
    const chosen = current.request.invocationId;
    const request = {
      kind: 'resume',
      responses: params.responses,
      streaming: params.streaming === true,
      ...(typeof chosen === 'string' ? { invocationId: chosen } : {}),
    };
    const record = await this.sessionService.updateRun(
      current.runId,
      { status: 'pending', attempts: 0, request, error: null, cancelRequested: false },
      { status: ['interrupted'] },
    );
    if (!record) {
      throw new ConfigurationError(
        `Run '${params.runId}' is ${current.status}, not interrupted: only a run that paused for an answer can be resumed. Check its status first.`,
      );
    }
    await this.putOnQueue(record);
    this.justQueued.keep(record);
    this.untaken?.watch(record);
    return runInfo(record);
  }

  /**
   * The run's events as they happen (partial ones too), from the start or after `lastEventId`;
   * ends when the run ends or pauses. After the live stream expired, the stored events are replayed.
   */
  async *join(runId: string, options: JoinOptions = {}): AsyncGenerator<StreamEntry> {
    const record = this.justQueued.take(runId, options.session) ?? (await this.record(runId, options.session));
    const key = this.keys.events(record.runId);
    const after = options.lastEventId;
    const live = await this.gate.run(`follow run '${runId}'`, () => this.redis.exists(key));
    if (live === 0 && !ACTIVE_RUN_STATUSES.includes(record.status)) {
      yield* this.replayStored(record, after);
      return;
    }
    const from = await this.gate.run(`follow run '${runId}'`, () => this.streamPosition(key, after));
    const reader = this.readers.take();
    let finished = false;
    try {
      await this.gate.run(`follow run '${runId}'`, () => waitUntilReady(reader, this.gate.timeoutMs));
      yield* followStream(reader, key, {
        after: from,
        signal: options.signal,
        onEnd: options.onEnd,
        stillGoing: async () => {
          const now = await this.sessionService.getRun(record.runId);
          return now !== undefined && ACTIVE_RUN_STATUSES.includes(now.status);
        },
      });
      finished = options.signal?.aborted !== true;
    } finally {
      this.readers.give(reader, finished);
    }
  }

  /**
   * The stream entry to read after: `lastEventId` itself when it is an entry id; when it is an
   * event's id (from a replay of the stored events), the entry that carried that event; else the start.
   */
  private async streamPosition(key: string, lastEventId: string | undefined): Promise<string> {
    if (lastEventId === undefined) return '0-0';
    if (STREAM_ID.test(lastEventId)) return lastEventId;
    const needle = JSON.stringify(lastEventId);
    for (const [id, fields] of await this.redis.xrange(key, '-', '+')) {
      if (
        fields[0] === 'e' &&
        fields[1]!.includes(needle) &&
        (JSON.parse(fields[1]!) as { id?: string }).id === lastEventId
      )
        return id;
    }
    return '0-0';
  }

  /**
   * Where the run is; throws `RunNotFoundError` for an unknown id, and for one outside `session`
   * when it is given. A run id you chose is found only with its session.
   */
  async status(runId: string, session?: SessionKey): Promise<RunInfo> {
    return runInfo(await this.record(runId, session));
  }

  /** The session's runs, oldest first. */
  async list(session: SessionKey): Promise<RunInfo[]> {
    checkSessionKey(session, 'list');
    return (await this.sessionService.listRuns({ session })).map(runInfo);
  }

  /**
   * Stops a run: a pending one never starts; a running one is stopped by the worker holding it
   * (one stored `CANCELLED` event; never retried). A finished run is left as it is. `session` as
   * for `status`.
   */
  async cancel(runId: string, session?: SessionKey): Promise<RunInfo> {
    await this.gate.check(`cancel run '${runId}'`);
    return this.cancelRecord(await this.record(runId, session));
  }

  /**
   * Resolves when Redis answers (within `redisTimeoutMs`), with the number of workers that showed
   * a sign of life lately; throws `QueueUnavailableError` at once when it does not.
   */
  checkHealth(): Promise<{ workers: number }> {
    return this.gate.run('reach Redis', async () => {
      await this.redis.ping();
      return { workers: (await workersSeen(this.redis, this.keys)).length };
    });
  }

  /** Starts a run on a timer (cron `pattern` or `everyMs`); every worker shares the ticks, each runs once. */
  schedule(params: ScheduleParams): Promise<ScheduleInfo> {
    return this.gate.run('store the schedule', () => this.schedules.upsert(params));
  }

  listSchedules(appName: string): Promise<ScheduleInfo[]> {
    return this.gate.run('list the schedules', () => this.schedules.list(appName));
  }

  getSchedule(id: string): Promise<ScheduleInfo | undefined> {
    return this.gate.run(`read schedule '${id}'`, () => this.schedules.get(id));
  }

  /** True when a schedule was removed. Runs it already started go on. */
  removeSchedule(id: string): Promise<boolean> {
    return this.gate.run(`remove schedule '${id}'`, () => this.schedules.remove(id));
  }

  /** Closes the queue's connections (joins in progress end). */
  async close(): Promise<void> {
    this.untaken?.close();
    this.readers.close();
    await this.bull.close();
    this.gate.dispose();
    // Without Redis there is nothing to quit politely.
    if (this.ownsRedis) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * For the workers' sweeper: makes sure a pending or running run has a job (Redis may have lost
   * it); an active job is left alone.
   * @internal
   */
  async restoreJob(run: RunRecord): Promise<void> {
    const what = `restore the job of run '${runIdOf(run)}'`;
    await ensureJob(this.bull, jobDataOf(run), false, (operation) => this.gate.run(what, operation));
  }

  /** For the workers: starts a run that waits its turn now, rather than at its next look. @internal */
  async promote(runId: string): Promise<void> {
    const job = await this.bull.getJob(runId);
    if (job && (await job.isDelayed())) await job.promote();
  }

  /** The run callers name `runId` (in `session`, when given); throws `RunNotFoundError`. */
  private async checkAnswers(record: RunRecord, responses: Record<string, unknown>): Promise<void> {
    const key = { appName: record.appName, userId: record.userId, sessionId: record.sessionId };
    const session = await this.sessionService.getSession(key);
    // The run id is its invocation's id.
    await checkResponses(session ? openInterrupts(session.events, record.runId) : [], responses, key);
  }

  private async record(runId: string, session: SessionKey | undefined): Promise<RunRecord> {
    const record = await findRun(this.sessionService, runId, session);
    if (!record) throw new RunNotFoundError(runId);
    return record;
  }

  /** Cancels a stored run (see `cancel`). */
  private cancelRecord(record: RunRecord): Promise<RunInfo> {
    return cancelRun(
      {
        store: this.sessionService,
        gate: this.gate,
        redis: this.redis,
        keys: this.keys,
        removeJob: async (key) => {
          // An active job is locked by its worker; that worker sees the cancelled status and stops.
          await (await this.bull.getJob(key))?.remove().catch(() => undefined);
        },
      },
      record,
    );
  }

  /** Adds the run's job; if Redis refuses, the run is marked failed so it does not wait for ever. */
  private async putOnQueue(record: RunRecord): Promise<void> {
    try {
      const what = `queue run '${runIdOf(record)}'`;
      await ensureJob(this.bull, jobDataOf(record), true, (operation) => this.gate.run(what, operation));
    } catch (error) {
      const failed = { code: 'QUEUE_UNAVAILABLE', message: 'Redis did not take the job.' };
      await this.sessionService
        .updateRun(
          record.runId,
          { status: 'failed', error: failed },
          { status: ['pending'], attempts: record.attempts },
        )
        .catch(() => undefined);
      throw error instanceof QueueUnavailableError
        ? error
        : new QueueUnavailableError(`queue run '${runIdOf(record)}'`, error);
    }
  }

  /** The stored events of the run's invocation, after `lastEventId` when it is one of theirs. */
  private async *replayStored(record: RunRecord, lastEventId: string | undefined): AsyncGenerator<StreamEntry> {
    const session = await this.sessionService.getSession({
      appName: record.appName,
      userId: record.userId,
      sessionId: record.sessionId,
    });
    const invocationId = runIdOf(record);
    const events = (session?.events ?? []).filter((e) => e.invocationId === invocationId && e.author !== 'user');
    const from = lastEventId === undefined ? 0 : events.findIndex((e) => e.id === lastEventId) + 1;
    for (const event of events.slice(from)) yield { id: event.id, event };
  }
}

function jobDataOf(run: RunRecord): RunJobData {
  return { runId: run.runId, session: { appName: run.appName, userId: run.userId, sessionId: run.sessionId } };
}
