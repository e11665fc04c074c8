import { type Event, RunCancelledError } from '@troupe/core';
import type { ClientGone } from './client-gone.js';
import { HttpError } from './http-error.js';

/** One run the server is executing: its abort controller and when it has finished. */
export class TrackedRun {
  private readonly controller = new AbortController();
  private settle!: (last: Event | undefined) => void;
  private detach: (() => void) | undefined;
  /** Resolves when {@link end} was called, with the last event the run stored (if any). */
  readonly finished: Promise<Event | undefined>;

  constructor(
    readonly key: string,
    private readonly onEnd: (run: TrackedRun) => void,
    clientGone: ClientGone | undefined,
  ) {
    this.finished = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.detach = clientGone?.(() => this.cancel('The client disconnected; the run was cancelled.'));
  }

  /** Passed to the runner as the run's abortSignal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts the run; it then ends 'cancelled' with its error event stored. */
  cancel(message: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new RunCancelledError(message));
  }

  /** Records that the run is over, with the last event it stored (idempotent: the first call counts). */
  end(last?: Event): void {
    this.detach?.();
    this.detach = undefined;
    this.onEnd(this);
    this.settle(last);
  }
}

/** The runs in flight, so that the server can refuse to delete a running session and can shut down gracefully. */
export class RunTracker {
  private readonly runs = new Set<TrackedRun>();
  private closing = false;

  /** Number of runs in flight. */
  get size(): number {
    return this.runs.size;
  }

  /** Registers a run on `key` (app, user, session); its client going away cancels it. Refused (503) while shutting down. */
  begin(key: string, clientGone: ClientGone | undefined): TrackedRun {
    if (this.closing)
      throw new HttpError(
        503,
        'SERVER_CLOSING',
        'The server is shutting down and starts no new runs. Retry against another instance.',
      );
    const run = new TrackedRun(key, (r) => this.runs.delete(r), clientGone);
    this.runs.add(run);
    return run;
  }

  /** True when a run of this server is executing on `key`. */
  isRunning(key: string): boolean {
    return this.runsOn(key).length > 0;
  }

  /**
   * The runs of this server on `key`. Usually one; a second request on a busy session is listed
   * too until the runner has refused it.
   */
  runsOn(key: string): TrackedRun[] {
    return [...this.runs].filter((run) => run.key === key);
  }

  /**
   * Stops starting runs, lets the ones in flight finish for up to `graceMs`, then cancels the
   * rest and waits (again up to `graceMs`) for them to store their cancellation.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    if (await this.idle(graceMs)) return;
    for (const run of this.runs)
      run.cancel(`The server shut down; the run was cancelled after a grace period of ${graceMs} ms.`);
    await this.idle(graceMs);
  }

  /** Resolves true once no run is in flight, or false after `timeoutMs`. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.runs.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const all = Promise.all([...this.runs].map((r) => r.finished)).then(() => true);
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The key of a session in the tracker. */
export function sessionKey(appName: string, userId: string, sessionId: string): string {
  return JSON.stringify([appName, userId, sessionId]);
}
