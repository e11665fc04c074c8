import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '@troupe/core';
import type { JobSchedulerJson, Queue } from 'bullmq';
import { JOB_OPTIONS, type QueueJobData, TICK_JOB, type TickJobData } from './jobs.js';
import { strategyOf } from './run-request.js';
import type { ScheduleInfo, ScheduleParams } from '@troupe/core/hosting';

/** What a schedule's ticks carry: everything a worker needs to enqueue the tick's run. */
export type StoredSchedule = Pick<
  ScheduleInfo,
  'id' | 'appName' | 'userId' | 'sessionId' | 'newMessage' | 'input' | 'multitaskStrategy'
>;

const SCHEDULE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Schedules are BullMQ job schedulers: Redis keeps them, and each tick is one job with an id of its
 * own, so however many workers run, a tick is taken once. A tick's job only enqueues the tick's run
 * (with an id derived from the tick), which then runs like any other.
 */
export class Schedules {
  constructor(private readonly bull: Queue<QueueJobData>) {}

  async upsert(params: ScheduleParams): Promise<ScheduleInfo> {
    const schedule = storedSchedule(params);
    const repeat =
      params.pattern !== undefined
        ? { pattern: params.pattern, ...(params.tz !== undefined ? { tz: params.tz } : {}) }
        : { every: params.everyMs! };
    try {
      await this.bull.upsertJobScheduler(schedule.id, repeat, {
        name: TICK_JOB,
        data: { schedule },
        opts: JOB_OPTIONS,
      });
    } catch (error) {
      // BullMQ parses the cron pattern here; its message says what is wrong with it.
      // Redis's own failures (refused, dropped, no offline queue, no retry left) are not the pattern's fault.
      const redisFailure =
        error instanceof Error && /ECONN|Connection|closed|writeable|max retries/i.test(error.message);
      if (params.pattern !== undefined && !redisFailure) {
        throw new ConfigurationError(
          `Schedule '${schedule.id}': pattern ${JSON.stringify(params.pattern)} is not a valid cron pattern (${error instanceof Error ? error.message : String(error)}). Use five or six fields, e.g. '0 9 * * 1-5'.`,
        );
      }
      throw error;
    }
    return (await this.get(schedule.id)) ?? infoOf(schedule, repeat);
  }

  async list(appName: string): Promise<ScheduleInfo[]> {
    const all = await this.bull.getJobSchedulers(0, -1, true);
    return all.map(fromScheduler).filter((s): s is ScheduleInfo => s !== undefined && s.appName === appName);
  }

  async get(id: string): Promise<ScheduleInfo | undefined> {
    const found = await this.bull.getJobScheduler(id);
    return found ? fromScheduler(found) : undefined;
  }

  remove(id: string): Promise<boolean> {
    return this.bull.removeJobScheduler(id);
  }
}

function storedSchedule(params: ScheduleParams): StoredSchedule {
  const id = params.id ?? `schedule-${randomUUID()}`;
  if (!SCHEDULE_ID.test(id))
    throw new ConfigurationError(
      `Schedule id ${JSON.stringify(id)} is not valid; use 1–64 characters of A-Za-z0-9._- or omit it.`,
    );
  for (const field of ['appName', 'userId'] as const) {
    if (typeof params[field] !== 'string' || params[field] === '')
      throw new ConfigurationError(
        `Schedule '${id}' needs ${field} as a non-empty string; got ${JSON.stringify(params[field])}.`,
      );
  }
  if (params.sessionId !== undefined && (typeof params.sessionId !== 'string' || params.sessionId === '')) {
    throw new ConfigurationError(
      `Schedule '${id}': sessionId must be a non-empty string, or omitted for a new session per run; got ${JSON.stringify(params.sessionId)}.`,
    );
  }
  if (params.newMessage === undefined && params.input === undefined)
    throw new ConfigurationError(`Schedule '${id}' needs a newMessage or an input for its runs.`);
  if ((params.pattern === undefined) === (params.everyMs === undefined)) {
    throw new ConfigurationError(
      `Schedule '${id}' needs exactly one of pattern (cron, e.g. '0 9 * * 1-5') and everyMs (milliseconds, at least 1000).`,
    );
  }
  if (
    params.everyMs !== undefined &&
    (typeof params.everyMs !== 'number' || !Number.isInteger(params.everyMs) || params.everyMs < 1_000)
  ) {
    throw new ConfigurationError(
      `Schedule '${id}': everyMs is ${JSON.stringify(params.everyMs)}; use a whole number of milliseconds, at least 1000.`,
    );
  }
  if (params.pattern !== undefined && (typeof params.pattern !== 'string' || params.pattern.trim() === '')) {
    throw new ConfigurationError(
      `Schedule '${id}': pattern is ${JSON.stringify(params.pattern)}; use a cron pattern such as '0 9 * * 1-5'.`,
    );
  }
  return {
    id,
    appName: params.appName,
    userId: params.userId,
    ...(params.sessionId !== undefined ? { sessionId: params.sessionId } : {}),
    ...(params.newMessage !== undefined ? { newMessage: params.newMessage } : {}),
    ...(params.input !== undefined ? { input: params.input } : {}),
    multitaskStrategy: strategyOf(params.multitaskStrategy, `Schedule '${id}'`, 'enqueue'),
  };
}

function fromScheduler(found: JobSchedulerJson<QueueJobData>): ScheduleInfo | undefined {
  const data = found.template?.data as TickJobData | undefined;
  if (!data?.schedule) return undefined;
  return infoOf(
    data.schedule,
    {
      ...(found.pattern ? { pattern: found.pattern } : {}),
      ...(found.every ? { every: Number(found.every) } : {}),
      ...(found.tz ? { tz: found.tz } : {}),
    },
    found.next,
  );
}

function infoOf(
  schedule: StoredSchedule,
  repeat: { pattern?: string; every?: number; tz?: string },
  next?: number,
): ScheduleInfo {
  return {
    ...schedule,
    ...(repeat.pattern !== undefined ? { pattern: repeat.pattern } : {}),
    ...(repeat.tz !== undefined ? { tz: repeat.tz } : {}),
    ...(repeat.every !== undefined ? { everyMs: repeat.every } : {}),
    ...(next !== undefined ? { next: Number(next) } : {}),
  };
}
