import type { TrackedRun } from './run-tracker.js';

/** How a paced stream turns its items into frames and ends. */
export interface PacedSseHooks<T> {
  /** The SSE frame of one item, written in one chunk (so one write). */
  frame(item: T): string;
  /** Sees every item, before it is sent. */
  onItem?(item: T): void;
  /** The source threw: the items to send as the stream's end (none when the source already told). */
  onError(error: unknown): T[];
  /** Once, after the last frame: the run's handle is released here. */
  onEnd(): void;
}

/**
 * A run's items as server-sent events, pumped by one loop that is the source's only reader. While
 * the run goes on, the loop takes the next item only when the client has taken the last one, so a
 * slow client slows its run instead of filling a buffer. Once the run is cancelled (the client went
 * away, a cancel request, shutdown), it stops waiting for the client and runs the source to its end,
 * so the cancellation is stored and the session released even if nobody reads: a cancelled run
 * yields at most a few more items. `/run_sse` and AG-UI streams are made this way.
 */
export function pacedSse<T>(
  tracked: TrackedRun,
  source: AsyncIterator<T>,
  hooks: PacedSseHooks<T>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  tracked.signal.addEventListener('abort', wakeUp, { once: true });

  const send = (item: T) => {
    if (!open) return;
    try {
      controller.enqueue(encoder.encode(hooks.frame(item)));
    } catch {
      // The stream was torn down with the connection; the run goes on to store its end.
      open = false;
    }
  };
  const clientWantsMore = async () => {
    while (open && !tracked.signal.aborted && (controller.desiredSize ?? 0) <= 0) {
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  const pump = async () => {
    try {
      for (;;) {
        await clientWantsMore();
        const step = await source.next();
        if (step.done) break;
        hooks.onItem?.(step.value);
        send(step.value);
      }
    } catch (error) {
      for (const item of hooks.onError(error)) send(item);
    } finally {
      hooks.onEnd();
      if (open) {
        open = false;
        controller.close();
      }
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        void pump();
      },
      pull: wakeUp,
      cancel() {
        open = false;
        tracked.cancel('The client disconnected; the run was cancelled.');
        wakeUp();
      },
    },
    { highWaterMark: 1 },
  );
}
