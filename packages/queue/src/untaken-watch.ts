import type { RunRecord } from '@troupe/core/stores';
import type { RunInfo } from '@troupe/core/hosting';
import { runInfo } from './run-info.js';

/** Told of a run that no worker took in time (`RunQueueOptions.onUntaken`). */
export type UntakenListener = (run: RunInfo, seen: { waitedMs: number; workers: number | undefined }) => void;

export interface UntakenWatchOptions {
  afterMs: number;
  onUntaken: UntakenListener;
  /** The run's record now (by its key). */
  current(key: string): Promise<RunRecord | undefined>;
  /** How many workers were seen lately; undefined when Redis cannot tell. */
  workers(): Promise<number | undefined>;
}

/**
 * Looks once, `afterMs` after a run was queued, whether a worker has taken it; if it still waits,
 * tells `onUntaken` (issue #28: `troupe api --redis` with no worker left runs waiting and said
 * nothing). One timer per run, which never keeps the process alive.
 */
export class UntakenWatch {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: UntakenWatchOptions) {}

  watch(record: RunRecord): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.look(record);
    }, this.options.afterMs);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async look(queued: RunRecord): Promise<void> {
    let now: RunRecord | undefined;
    try {
      now = await this.options.current(queued.runId);
    } catch {
      // A diagnostic only: when the store cannot say, whoever follows the run gets the store's error.
      return;
    }
    // Taken (and maybe put back) since: attempts moved on, or the run is no longer waiting.
    if (now?.status !== 'pending' || now.attempts !== queued.attempts || now.updatedAt !== queued.updatedAt) return;
    this.options.onUntaken(runInfo(now), { waitedMs: this.options.afterMs, workers: await this.options.workers() });
  }
}
