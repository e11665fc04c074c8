import { randomUUID } from 'node:crypto';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import { ConfigurationError, type SessionKey, type SessionService } from '@troupe/core';
import { type BackgroundRuns } from '@troupe/core/hosting';
import { type RunRecord, type RunRecordingSessionService, supportsRunRecords } from '@troupe/core/stores';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueUnavailableError, RunNotFoundError } from './errors.js';
import { ensureJob, type QueueJobData, queueOptions } from './jobs.js';
import { QUEUE_NAME, RedisKeys } from './keys.js';
import { duplicate, openRedis, type RedisConnection } from './redis-connection.js';
import { runInfo } from './run-info.js';
import { checkRunId, checkSessionKey, runRequestOf, strategyOf } from './run-request.js';
import { followStream, STREAM_ID } from './run-stream-reader.js';
import { Schedules } from './schedules.js';
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
  private readonly readers = new Set<Redis>();

  constructor(options: RunQueueOptions) {
    this.sessionService = runRecordStore(options.sessionService, 'RunQueue');
    const { client, shared } = openRedis(options.redis, 'RunQueue');
    this.redis = client;
    this.ownsRedis = !shared;
    this.keys = new RedisKeys(prefixOf(options.prefix, 'RunQueue'));
    this.bull = new Queue<QueueJobData>(QUEUE_NAME, queueOptions(client, this.keys.prefix));
    this.schedules = new Schedules(this.bull);
  }

  /**
   * Records a run as `pending` and puts it on the queue. With another run pending or running on the
   * session, `multitaskStrategy` decides: `'reject'` throws `SessionBusyError` (nothing stored),
   * `'enqueue'` runs this one after it, `'interrupt'` cancels it first.
   */
  async enqueue(params: EnqueueParams): Promise<RunInfo> {
    const request = runRequestOf(params);
    const strategy = strategyOf(params.multitaskStrategy, 'enqueue');
    const key = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
    if (strategy === 'interrupt') {
      for (const active of await this.sessionService.listRuns({ session: key, statuses: ACTIVE_RUN_STATUSES }))
        await this.cancel(active.runId);
    }
    const runId = params.runId ?? `run-${randomUUID()}`;
    const record = await this.sessionService.createRun({ ...key, runId, request, exclusive: strategy === 'reject' });
    await this.putOnQueue(record);
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
    const current = await this.record(params.runId);
    const request = { kind: 'resume', responses: params.responses, streaming: params.streaming === true };
    const record = await this.sessionService.updateRun(
      params.runId,
      { status: 'pending', attempts: 0, request, error: null, cancelRequested: false },
      { status: ['interrupted'] },
    );
    if (!record) {
      throw new ConfigurationError(
        `Run '${params.runId}' is ${current.status}, not interrupted: only a run that paused for an answer can be resumed. Check its status first.`,
      );
    }
    await this.putOnQueue(record);
    return runInfo(record);
  }

  /**
   * The run's events as they happen (partial ones too), from the start or after `lastEventId`;
   * ends when the run ends or pauses. After the live stream expired, the stored events are replayed.
   */
  async *join(runId: string, options: JoinOptions = {}): AsyncGenerator<StreamEntry> {
    const record = await this.record(runId);
    const key = this.keys.events(runId);
    const after = options.lastEventId;
    if ((await this.redis.exists(key)) === 0 && !ACTIVE_RUN_STATUSES.includes(record.status)) {
      yield* this.replayStored(record, after);
      return;
    }
    const from = await this.streamPosition(key, after);
    const reader = duplicate(this.redis);
    this.readers.add(reader);
    try {
      yield* followStream(reader, key, {
        after: from,
        signal: options.signal,
        stillGoing: async () => ACTIVE_RUN_STATUSES.includes((await this.record(runId)).status),
      });
    } finally {
      this.readers.delete(reader);
      reader.disconnect();
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

  /** Where the run is; throws `RunNotFoundError` for an unknown id. */
  async status(runId: string): Promise<RunInfo> {
    return runInfo(await this.record(runId));
  }

  /** The session's runs, oldest first. */
  async list(session: SessionKey): Promise<RunInfo[]> {
    checkSessionKey(session, 'list');
    return (await this.sessionService.listRuns({ session })).map(runInfo);
  }

  /**
   * Stops a run: a pending one never starts; a running one is stopped by the worker holding it
   * (one stored `CANCELLED` event; never retried). A finished run is left as it is.
   */
  async cancel(runId: string): Promise<RunInfo> {
    const current = await this.record(runId);
    const notStarted = await this.sessionService.updateRun(
      runId,
      { status: 'cancelled', cancelRequested: true },
      { status: ['pending'] },
    );
    if (notStarted) {
      await this.removeJob(runId);
      await this.redis.xadd(this.keys.events(runId), '*', 'end', 'cancelled').catch(() => undefined);
      return runInfo(notStarted);
    }
    if (current.status === 'interrupted') {
      // Paused for a human: nothing runs, so the record is all there is to stop.
      const stopped = await this.sessionService.updateRun(
        runId,
        { status: 'cancelled', cancelRequested: true },
        { status: ['interrupted'] },
      );
      if (stopped) return runInfo(stopped);
    }
    const asked = await this.sessionService.updateRun(
      runId,
      { cancelRequested: true },
      { status: ACTIVE_RUN_STATUSES },
    );
    if (!asked) return runInfo(await this.record(runId));
    // The worker holding it hears this at once; one taking it later reads cancelRequested.
    await this.redis.publish(this.keys.cancelChannel, runId);
    return runInfo(asked);
  }

  /** Starts a run on a timer (cron `pattern` or `everyMs`); every worker shares the ticks, each runs once. */
  schedule(params: ScheduleParams): Promise<ScheduleInfo> {
    return this.schedules.upsert(params);
  }

  listSchedules(appName: string): Promise<ScheduleInfo[]> {
    return this.schedules.list(appName);
  }

  getSchedule(id: string): Promise<ScheduleInfo | undefined> {
    return this.schedules.get(id);
  }

  /** True when a schedule was removed. Runs it already started go on. */
  removeSchedule(id: string): Promise<boolean> {
    return this.schedules.remove(id);
  }

  /** Closes the queue's connections (joins in progress end). */
  async close(): Promise<void> {
    for (const reader of this.readers) reader.disconnect();
    await this.bull.close();
    if (this.ownsRedis) await this.redis.quit().catch(() => undefined);
  }

  /**
   * For the workers' sweeper: makes sure a pending or running run has a job (Redis may have lost
   * it); an active job is left alone.
   * @internal
   */
  async restoreJob(runId: string): Promise<void> {
    await ensureJob(this.bull, runId, false);
  }

  /** For the workers: starts a run that waits its turn now, rather than at its next look. @internal */
  async promote(runId: string): Promise<void> {
    const job = await this.bull.getJob(runId);
    if (job && (await job.isDelayed())) await job.promote();
  }

  private async record(runId: string): Promise<RunRecord> {
    checkRunId(runId);
    const record = await this.sessionService.getRun(runId);
    if (!record) throw new RunNotFoundError(runId);
    return record;
  }

  /** Adds the run's job; if Redis refuses, the run is marked failed so it does not wait for ever. */
  private async putOnQueue(record: RunRecord): Promise<void> {
    try {
      await ensureJob(this.bull, record.runId);
    } catch (error) {
      const failed = { code: 'QUEUE_UNAVAILABLE', message: 'Redis did not take the job.' };
      await this.sessionService
        .updateRun(
          record.runId,
          { status: 'failed', error: failed },
          { status: ['pending'], attempts: record.attempts },
        )
        .catch(() => undefined);
      throw new QueueUnavailableError(`queue run '${record.runId}'`, error);
    }
  }

  private async removeJob(runId: string): Promise<void> {
    // An active job is locked by its worker; that worker sees the cancelled status and stops.
    await (await this.bull.getJob(runId))?.remove().catch(() => undefined);
  }

  /** The stored events of the run's invocation, after `lastEventId` when it is one of theirs. */
  private async *replayStored(record: RunRecord, lastEventId: string | undefined): AsyncGenerator<StreamEntry> {
    const session = await this.sessionService.getSession({
      appName: record.appName,
      userId: record.userId,
      sessionId: record.sessionId,
    });
    const events = (session?.events ?? []).filter((e) => e.invocationId === record.runId && e.author !== 'user');
    const from = lastEventId === undefined ? 0 : events.findIndex((e) => e.id === lastEventId) + 1;
    for (const event of events.slice(from)) yield { id: event.id, event };
  }
}

/** The store, once it is known to keep run records. */
export function runRecordStore(service: SessionService, what: string): RunRecordingSessionService {
  if (!service || !supportsRunRecords(service)) {
    const name = (service as object | undefined)?.constructor?.name ?? String(service);
    throw new ConfigurationError(
      `${what}: the sessionService (${name}) does not keep run records. Use SqliteSessionService, PostgresSessionService or InMemorySessionService (one process only), or implement RunRecordStore.`,
    );
  }
  return service;
}

export function prefixOf(prefix: unknown, what: string): string {
  if (prefix === undefined) return 'troupe';
  if (typeof prefix !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) {
    throw new ConfigurationError(
      `${what}: prefix ${JSON.stringify(prefix)} is not valid; use 1–64 characters of A-Za-z0-9_.- (the same on the queue and every worker).`,
    );
  }
  return prefix;
}
