import { RunCancelledError, type SessionKey } from '@troupe/core';

/** One run a call started, as a {@link McpRunTracker} follows it. */
export interface McpTrackedRun {
  /** Aborting it cancels the run (which then stores its cancellation). */
  readonly signal: AbortSignal;
  /** Called once, when the run is over. */
  end(): void;
}

/**
 * Follows the runs the MCP calls start, so that their host can cancel them when it shuts down and
 * refuse to delete a session while one runs (`createApp` passes its own). `begin` may throw to
 * refuse a run (a host that is shutting down): the call answers with that error, nothing stored.
 */
export interface McpRunTracker {
  begin(session: SessionKey): McpTrackedRun;
}

/** The handle's own tracker: every run in flight, to cancel on `close()`; another host's besides. */
export interface LocalRunTracker extends McpRunTracker {
  /** This tracker, and `host`'s too for every run. */
  alongside(host: McpRunTracker): LocalRunTracker;
  /** Cancels every run in flight and waits (at most `limitMs`) for them to end. */
  close(limitMs: number): Promise<void>;
}

/** The tracker of one `mcpServer` handle. */
export function localRunTracker(): LocalRunTracker {
  const live = new Set<{ controller: AbortController; ended: Promise<void> }>();
  const make = (host: McpRunTracker | undefined): LocalRunTracker => ({
    begin(session) {
      const hosted = host?.begin(session);
      const controller = new AbortController();
      let done!: () => void;
      const entry = { controller, ended: new Promise<void>((resolve) => (done = resolve)) };
      live.add(entry);
      return {
        signal: hosted ? AbortSignal.any([controller.signal, hosted.signal]) : controller.signal,
        end() {
          if (!live.delete(entry)) return;
          hosted?.end();
          done();
        },
      };
    },
    alongside: (other) => make(other),
    async close(limitMs) {
      const running = [...live];
      for (const { controller } of running)
        controller.abort(new RunCancelledError('The MCP server is closing; the run was cancelled.'));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running.map((r) => r.ended)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs))),
      ]);
      clearTimeout(timer);
    },
  });
  return make(undefined);
}
