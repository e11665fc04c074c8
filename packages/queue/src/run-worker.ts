import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import {
  AddSessionToMemoryPlugin,
  type ArtifactService,
  type BaseAgent,
  type CompactionOptions,
  type BaseLlm,
  type BasePlugin,
  ConfigurationError,
  type MemoryService,
  RunCancelledError,
  RunDrainedError,
  Runner,
  type SessionService,
} from '@troupe/core';
import { type RunRecord, type RunRecordingSessionService } from '@troupe/core/stores';
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { type QueueJobData, type RunJobData, TICK_JOB, type TickJobData } from './jobs.js';
import { QUEUE_NAME, RedisKeys } from './keys.js';
import { processRunJob, type RunJobContext } from './process-run.js';
import { processTickJob } from './process-tick.js';
import { duplicate, openRedis, type RedisConnection } from './redis-connection.js';
import { prefixOf, runRecordStore } from './queue-settings.js';
import { RunQueue } from './run-queue.js';
import { runIdOf } from './run-keys.js';
import type { RunReport } from './run-report.js';
import { announce, PRESENCE_INTERVAL_MS, retire } from './worker-presence.js';

export interface RunWorkerOptions {
  /** The apps this worker runs, by name: the root agent of each (as `createApp({ apps })`). */
  apps: Readonly<Record<string, BaseAgent>>;
  /** The session store every API replica and worker shares (PostgreSQL, or SQLite on one machine). */
  sessionService: SessionService;
  /** Where the apps' `ctx.saveArtifact` keeps artifacts: the store the API replicas serve them from. */
  artifactService?: ArtifactService;
  /**
   * Long-term memory of the apps (`loadMemoryTool`, `preloadMemoryTool`): the store the API replicas
   * use. After every run and resume the session is added to it; a failure to add it goes to `onError`.
   */
  memoryService?: MemoryService;
  redis: RedisConnection;
  /** Prefix of every Redis key, as the queue's. @default 'troupe' */
  prefix?: string;
  /** Runs this worker runs at once. @default 10 */
  concurrency?: number;
  /**
   * How long a run is held without a sign of life from its worker; after it, another worker takes
   * it over (and the session lease, which has the same length, lets it). The sign of life comes
   * from timers (BullMQ renews the lock every half of it, the runner the lease every third), so a
   * run awaiting a slow step (a tool call of minutes) keeps its worker; only a dead worker, or one
   * whose event loop stopped, loses it. Work that blocks the event loop longer than this
   * (synchronous CPU-bound tools, a paused VM) gets its run taken over: make such work asynchronous
   * or raise this. A shorter lock means a faster takeover after a crash (about the lock's length)
   * and more renewals: per run, a Redis lock extension every half lock and a store write every
   * third.
   * @default 10000
   */
  lockDurationMs?: number;
  /**
   * How often workers look for runs whose worker stopped (one small Redis script per worker each
   * time; the workers share one check per interval). A dead worker's run is taken over at the
   * first look after its lock expired.
   * @default a tenth of lockDurationMs, at least 500
   */
  stalledIntervalMs?: number;
  /** Takeovers after a worker died before the run ends `abandoned` (with a stored `RUN_ABANDONED` event). @default 2 */
  maxStalledCount?: number;
  /** How long a run's live stream stays in Redis after the run ended or paused; later joins replay the stored events. @default 600000 */
  streamTtlMs?: number;
  /** How often the store's pending and running runs are checked for a job (Redis may have lost it); 0 turns it off. @default 30000 */
  sweepIntervalMs?: number;
  /** Plugins of every app's runner. */
  plugins?: readonly BasePlugin[];
  /** Model for LlmAgents that name none. */
  defaultModel?: BaseLlm | string;
  /** Strings masked in stored errors (see `RunnerOptions.secrets`). */
  secrets?: readonly string[];
  /** Summarise older events every few turns (see `RunnerOptions.compaction`). */
  compaction?: CompactionOptions;
  /** Told of failures that do not end a run (Redis dropping a live frame, a sweep that failed). @default console.error */
  onError?: (error: unknown, context: { runId?: string; during: string }) => void;
  /**
   * Told of what this worker does with each run: started (or taken over from a worker that
   * stopped), ended, drained at shutdown, lost to another worker, abandoned. `troupe worker` prints
   * a line for each. @default nothing
   */
  onRun?: (report: RunReport) => void;
}

/** How long a stopping worker tries to remove its sign of life from Redis. */
const RETIRE_TIMEOUT_MS = 2_000;

/** Running streams outlive any sane run; they only bound what a run that dies without ending leaves. */
const RUNNING_STREAM_TTL_MS = 24 * 3_600_000;

/**
 * Takes runs from the queue and runs them (SPEC §13): leases the session, runs or resumes the
 * invocation, publishes every event to the run's Redis Stream, records how the run ended. A worker
 * that dies mid-run has its runs taken over by another once the lock expires; `close` stops taking
 * runs, lets those in progress finish within a grace period, and hands the rest back.
 *
 * @example
 * const worker = new RunWorker({ apps: { helpdesk: rootAgent }, sessionService, redis: 'redis://127.0.0.1:6379' });
 * await worker.start();
 * process.once('SIGTERM', () => void worker.close({ gracePeriodMs: 10_000 }));
 */
export class RunWorker {
  private readonly store: RunRecordingSessionService;
  private readonly redis: Redis;
  private readonly ownsRedis: boolean;
  private readonly keys: RedisKeys;
  private readonly runners = new Map<string, Runner>();
  private readonly active = new Map<string, { controller: AbortController; runId: string }>();
  /** This worker's name in Redis (see worker-presence.ts). */
  private readonly id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly appNames: string[];
  private readonly onRun: NonNullable<RunWorkerOptions['onRun']> | undefined;
  private presenceTimer: NodeJS.Timeout | undefined;
  private readonly settings: Required<
    Pick<
      RunWorkerOptions,
      'concurrency' | 'lockDurationMs' | 'stalledIntervalMs' | 'maxStalledCount' | 'streamTtlMs' | 'sweepIntervalMs'
    >
  >;
  private readonly onError: NonNullable<RunWorkerOptions['onError']>;
  private readonly queue: RunQueue;
  private worker: Worker<QueueJobData> | undefined;
  private subscriber: Redis | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: RunWorkerOptions) {
    this.store = runRecordStore(options.sessionService, 'RunWorker');
    if (!options.apps || typeof options.apps !== 'object' || Object.keys(options.apps).length === 0) {
      throw new ConfigurationError('RunWorker needs apps: { [appName]: rootAgent }, the same apps the API serves.');
    }
    this.settings = settingsOf(options);
    if (options.onRun !== undefined && typeof options.onRun !== 'function')
      throw new ConfigurationError(`RunWorker: onRun must be a function; got ${typeof options.onRun}.`);
    this.onRun = options.onRun;
    this.appNames = Object.keys(options.apps);
    const { client, shared } = openRedis(options.redis, 'RunWorker', 'worker');
    this.redis = client;
    this.ownsRedis = !shared;
    this.keys = new RedisKeys(prefixOf(options.prefix, 'RunWorker'));
    this.onError =
      options.onError ??
      ((error, context) =>
        console.error(`[troupe worker] ${context.during}${context.runId ? ` (run ${context.runId})` : ''}:`, error));
    const memory = options.memoryService;
    const remember = new AddSessionToMemoryPlugin({
      onError: (error, session) =>
        this.onError(error, { during: `adding session '${session.id}' of app '${session.appName}' to memory` }),
    });
    const plugins = memory ? [...(options.plugins ?? []), remember] : options.plugins;
    for (const [appName, agent] of Object.entries(options.apps)) {
      this.runners.set(
        appName,
        new Runner({
          appName,
          agent,
          sessionService: this.store,
          leaseTtlMs: this.settings.lockDurationMs,
          ...(plugins ? { plugins } : {}),
          ...(options.defaultModel ? { defaultModel: options.defaultModel } : {}),
          ...(options.secrets ? { secrets: options.secrets } : {}),
          ...(options.artifactService ? { artifactService: options.artifactService } : {}),
          ...(memory ? { memoryService: memory } : {}),
          ...(options.compaction ? { compaction: options.compaction } : {}),
        }),
      );
    }
    this.queue = new RunQueue({ redis: client, sessionService: this.store, prefix: this.keys.prefix });
  }

  /**
   * Starts taking runs (and schedule ticks), once `RunQueue.checkHealth` counts this worker. Resolves
   * once connected and listening for cancels.
   */
  async start(): Promise<void> {
    if (this.worker) return;
    this.subscriber = duplicate(this.redis);
    this.subscriber.on('message', (_channel: string, key: string) => {
      const run = this.active.get(key);
      run?.controller.abort(new RunCancelledError(`Run '${run.runId}' was cancelled.`));
    });
    this.subscriber.on('error', (error: unknown) => this.onError(error, { during: 'listening for cancels' }));
    await this.subscriber.subscribe(this.keys.cancelChannel);
    const context = this.jobContext();
    this.worker = new Worker<QueueJobData>(
      QUEUE_NAME,
      async (job, token) => {
        if (job.name === TICK_JOB) return processTickJob(this.queue, this.store, job as Job<TickJobData>);
        return processRunJob(context, job as Job<RunJobData>, token!);
      },
      {
        connection: this.redis,
        prefix: this.keys.prefix,
        concurrency: this.settings.concurrency,
        lockDuration: this.settings.lockDurationMs,
        stalledInterval: this.settings.stalledIntervalMs,
        // Crash recovery counts takeovers in the run record (and abandons with a stored event); BullMQ
        // must not fail the job on its own first.
        maxStalledCount: 1_000_000,
        drainDelay: 1,
        // Jobs are taken from `run()` below, once the API side counts this worker (issue #28).
        autorun: false,
      },
    );
    this.worker.on('error', (error) => this.onError(error, { during: 'taking jobs' }));
    this.worker.on('failed', (job, error) =>
      this.onError(error, { ...(job ? { runId: String(job.id) } : {}), during: 'processing a job' }),
    );
    await this.worker.waitUntilReady();
    // Counted before the first run is taken: a run queued earlier must not start and end while
    // `checkHealth` says no worker is there.
    await this.announce();
    // close() came meanwhile: it retires the presence, which a timer set now would renew.
    if (this.closing) return;
    this.presenceTimer = setInterval(() => void this.announce(), PRESENCE_INTERVAL_MS);
    this.presenceTimer.unref();
    // Resolves when the worker closes; rejects when it could not go on taking jobs.
    void this.worker.run().catch((error: unknown) => this.stoppedTakingJobs(error));
    if (this.settings.sweepIntervalMs > 0) {
      void this.sweep();
      this.sweepTimer = setInterval(() => void this.sweep(), this.settings.sweepIntervalMs);
      this.sweepTimer.unref();
    }
  }

  /**
   * Stops taking runs; runs in progress may finish within `gracePeriodMs`, after which they are
   * drained (no cancellation stored) and handed back for another worker to resume.
   */
  close(options: { gracePeriodMs?: number } = {}): Promise<void> {
    this.closing ??= this.shutdown(options.gracePeriodMs ?? 10_000);
    return this.closing;
  }

  private async shutdown(gracePeriodMs: number): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    const drain = setTimeout(() => {
      for (const { controller } of this.active.values()) controller.abort(new RunDrainedError());
    }, gracePeriodMs);
    try {
      await this.worker?.close();
    } finally {
      clearTimeout(drain);
    }
    if (this.worker) await this.retirePresence();
    await this.subscriber?.quit().catch(() => undefined);
    await this.queue.close();
    await Promise.allSettled([...this.runners.values()].map((runner) => runner.close()));
    if (this.ownsRedis) await this.redis.quit().catch(() => undefined);
  }

  /** Renews this worker's sign of life, which the API side counts (`RunQueue.checkHealth`). */
  private async announce(): Promise<void> {
    try {
      await announce(this.redis, this.keys, {
        id: this.id,
        host: hostname(),
        pid: process.pid,
        apps: this.appNames,
        concurrency: this.settings.concurrency,
        running: this.active.size,
      });
    } catch (error) {
      this.onError(error, { during: 'telling the API that this worker runs' });
    }
  }

  /** BullMQ's job loop failed: this worker takes no more runs, so the API must stop counting it. */
  private async stoppedTakingJobs(error: unknown): Promise<void> {
    this.onError(error, { during: 'taking jobs' });
    if (this.closing) return;
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    await this.retirePresence();
  }

  /** Without it the API counts this worker until its sign of life expires; not worth a hang if Redis is away. */
  private async retirePresence(): Promise<void> {
    await retire(this.redis, this.keys, this.id, RETIRE_TIMEOUT_MS).catch((error: unknown) =>
      this.onError(error, { during: 'telling the API that this worker stops' }),
    );
  }

  /** Re-adds the jobs of runs the store says are pending or running but Redis no longer has. */
  private async sweep(): Promise<void> {
    try {
      const runs = await this.store.listRuns({ statuses: ACTIVE_RUN_STATUSES, limit: 1_000 });
      for (const run of runs) {
        if (this.closing) return;
        await this.queue.restoreJob(run);
      }
    } catch (error) {
      this.onError(error, { during: 'sweeping for lost jobs' });
    }
  }

  private jobContext(): RunJobContext {
    return {
      store: this.store,
      redis: this.redis,
      keys: this.keys,
      ttls: { runningMs: RUNNING_STREAM_TTL_MS, endedMs: this.settings.streamTtlMs },
      runnerFor: (appName) => this.runners.get(appName),
      active: this.active,
      maxStalledCount: this.settings.maxStalledCount,
      leaseTtlMs: this.settings.lockDurationMs,
      promoteNext: (run) => this.promoteNext(run),
      onError: (error, runId) => this.onError(error, { runId, during: 'publishing events' }),
      report: (report) => {
        try {
          this.onRun?.(report);
        } catch (error) {
          // A log that fails must not change how the run ends.
          this.onError(error, { runId: report.run.runId, during: 'reporting the run (onRun)' });
        }
      },
    };
  }

  /** The session's next run has been waiting its turn: start it now rather than at its next look. */
  private async promoteNext(run: RunRecord): Promise<void> {
    try {
      const session = { appName: run.appName, userId: run.userId, sessionId: run.sessionId };
      const [next] = await this.store.listRuns({ session, statuses: ['pending'], limit: 1 });
      if (!next) return;
      await this.queue.promote(next.runId);
    } catch (error) {
      // It starts at its next look anyway.
      this.onError(error, { runId: runIdOf(run), during: 'starting the next run of the session' });
    }
  }
}

function settingsOf(options: RunWorkerOptions): RunWorker['settings'] {
  const lockDurationMs = positive(options.lockDurationMs, 'lockDurationMs', 10_000, 1_000);
  return {
    concurrency: positive(options.concurrency, 'concurrency', 10, 1),
    lockDurationMs,
    stalledIntervalMs: positive(
      options.stalledIntervalMs,
      'stalledIntervalMs',
      Math.max(500, Math.floor(lockDurationMs / 10)),
      100,
    ),
    maxStalledCount: positive(options.maxStalledCount, 'maxStalledCount', 2, 0),
    streamTtlMs: positive(options.streamTtlMs, 'streamTtlMs', 600_000, 1_000),
    sweepIntervalMs: positive(options.sweepIntervalMs, 'sweepIntervalMs', 30_000, 0),
  };
}

function positive(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ConfigurationError(
      `RunWorker: ${name} is ${JSON.stringify(value)}; use a whole number of at least ${min}.`,
    );
  }
  return value;
}
