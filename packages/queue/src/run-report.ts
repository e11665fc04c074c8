import type { RunInfo } from '@troupe/core/hosting';

/**
 * What a worker did with a run, for its log (`RunWorkerOptions.onRun`; `troupe worker` prints one
 * line each). `run.attempts` is the attempt; `run.status` and `run.error` say how it ended.
 */
export type RunReport =
  /** A worker took the run: a new one, or, with `takeover`, one whose worker stopped mid-run. */
  | { kind: 'started'; run: RunInfo; takeover: boolean }
  /** The run ended (completed, failed, cancelled) or paused for a human (interrupted). */
  | { kind: 'ended'; run: RunInfo; durationMs: number }
  /** The worker was stopped before the run ended: the run is back on the queue for another worker. */
  | { kind: 'drained'; run: RunInfo; durationMs: number }
  /** The worker stalled (froze) and another took the run over: this worker stored nothing more. */
  | { kind: 'lost'; run: RunInfo; durationMs: number }
  /** The run's workers kept stopping: it ended `abandoned`, and its session is free. */
  | { kind: 'abandoned'; run: RunInfo };
