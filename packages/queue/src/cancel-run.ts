import { ACTIVE_RUN_STATUSES, type RunRecord, type RunRecordStore } from '@troupe/core/stores';
import type { RunInfo } from '@troupe/core/hosting';
import type { Redis } from 'ioredis';
import { RunNotFoundError } from './errors.js';
import type { RedisKeys } from './keys.js';
import type { RedisGate } from './redis-gate.js';
import { runInfo } from './run-info.js';
import { runIdOf } from './run-keys.js';

/** What cancelling a run needs from the queue. */
export interface CancelDeps {
  store: RunRecordStore;
  gate: RedisGate;
  redis: Redis;
  keys: RedisKeys;
  /** Removes the run's job, if it has one that is not running. */
  removeJob(key: string): Promise<void>;
}

/**
 * Stops a stored run: a pending one never starts; a paused one is cancelled in its record; a running
 * one is stopped by the worker holding it, told over pub/sub (a worker taking it later reads
 * `cancelRequested`). A finished run is left as it is.
 */
export async function cancelRun(deps: CancelDeps, current: RunRecord): Promise<RunInfo> {
  const { store, gate, redis, keys } = deps;
  const key = current.runId;
  const runId = runIdOf(current);
  const notStarted = await store.updateRun(
    key,
    { status: 'cancelled', cancelRequested: true },
    { status: ['pending'] },
  );
  if (notStarted) {
    // The record says it never starts: a job or stream marker Redis refuses now changes nothing.
    await gate
      .run(`remove the job of run '${runId}'`, async () => {
        await deps.removeJob(key);
        await redis.xadd(keys.events(key), '*', 'end', 'cancelled');
      })
      .catch(() => undefined);
    return runInfo(notStarted);
  }
  if (current.status === 'interrupted') {
    // Paused for a human: nothing runs, so the record is all there is to stop.
    const stopped = await store.updateRun(
      key,
      { status: 'cancelled', cancelRequested: true },
      { status: ['interrupted'] },
    );
    if (stopped) return runInfo(stopped);
  }
  const asked = await store.updateRun(key, { cancelRequested: true }, { status: ACTIVE_RUN_STATUSES });
  if (!asked) {
    const now = await store.getRun(key);
    if (!now) throw new RunNotFoundError(runId);
    return runInfo(now);
  }
  await gate.run(`cancel run '${runId}'`, () => redis.publish(keys.cancelChannel, key));
  return runInfo(asked);
}
