import type { ServerResponse } from 'node:http';
import { withNodeBody } from './node-body.js';
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

/** Where a pump writes its frames: a web stream's controller, or Node's response. */
interface FrameSink {
  /** Sends one frame; false once the connection is gone (the pump stops sending). */
  send(frame: string): boolean;
  /** True while the client has not taken what was sent. */
  readonly full: boolean;
  close(): void;
}

const DISCONNECTED = 'The client disconnected; the run was cancelled.';

/**
 * A run's items as a server-sent-events response, pumped by one loop that is the source's only
 * reader. While the run goes on, the loop takes the next item only when the client has taken the
 * last one, so a slow client slows its run instead of filling a buffer. Once the run is cancelled
 * (the client went away, a cancel request, shutdown), it stops waiting for the client and runs the
 * source to its end, so the cancellation is stored and the session released even if nobody reads:
 * a cancelled run yields at most a few more items. `/run_sse` and AG-UI streams are made this way.
 *
 * The body is a web stream that starts the run when first read. Served by `serve()`, the frames
 * are written to Node's response instead (see {@link withNodeBody}): no web stream, and the frames
 * a run yields within one turn of the event loop leave in one write with the headers.
 */
export function pacedSse<T>(
  tracked: TrackedRun,
  source: AsyncIterator<T>,
  hooks: PacedSseHooks<T>,
  init: ResponseInit,
): Response {
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  tracked.signal.addEventListener('abort', wakeUp, { once: true });
  let started = false;

  const pump = async (sink: FrameSink) => {
    let open = true;
    const send = (item: T) => {
      // Once the connection is torn down, the run goes on to store its end.
      if (open) open = sink.send(hooks.frame(item));
    };
    try {
      for (;;) {
        while (open && !tracked.signal.aborted && sink.full) await new Promise<void>((resolve) => (wake = resolve));
        const step = await source.next();
        if (step.done) break;
        hooks.onItem?.(step.value);
        send(step.value);
      }
    } catch (error) {
      for (const item of hooks.onError(error)) send(item);
    } finally {
      hooks.onEnd();
      if (open) sink.close();
    }
  };

  // With no high-water mark the stream calls `pull` only when its reader waits: the run starts on
  // the first read (unless `serve()` claims the body first), and later pulls wake the pump. The
  // pump goes one item ahead of the reader, as a stream that holds one chunk would.
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (started) return wakeUp();
        started = true;
        const encoder = new TextEncoder();
        void pump({
          send(frame) {
            if (!cancelled) controller.enqueue(encoder.encode(frame));
            return !cancelled;
          },
          get full() {
            return (controller.desiredSize ?? 0) < 0;
          },
          close() {
            if (!cancelled) controller.close();
          },
        });
      },
      cancel() {
        cancelled = true;
        tracked.cancel(DISCONNECTED);
        // Cancelled before its first read: the run started already and holds its session, so it is
        // still run to its end (stored as cancelled), with nowhere to send its frames.
        if (started) return wakeUp();
        started = true;
        void pump(GONE);
      },
    },
    { highWaterMark: 0 },
  );

  return withNodeBody(new Response(body, init), () => {
    if (started) return undefined;
    started = true;
    return (outgoing) => void pump(nodeSink(outgoing, wakeUp));
  });
}

/** The sink of a stream whose client left before reading: it takes nothing. */
const GONE: FrameSink = { send: () => false, full: false, close() {} };

/**
 * Frames written to Node's response. The frames of one turn of the event loop are gathered and
 * leave in one write, the first one with the status line and headers; `write` returning false is the
 * client's backpressure, lifted by 'drain'. While a turn's frames wait, the sink counts as full once
 * they reach the response's high-water mark, so a run cannot outpace its client within one turn.
 *
 * The gathering is ours rather than `cork()`'s: on Node 22 and 24, a write that returns false while
 * the socket is corked never gets its 'drain', and a response ended while corked on a kept-alive
 * connection loses that turn's frames.
 */
function nodeSink(outgoing: ServerResponse, wakeUp: () => void): FrameSink {
  let pending: string[] = [];
  let pendingLength = 0;
  let scheduled = false;
  let blocked = false;
  const flush = () => {
    scheduled = false;
    if (outgoing.destroyed || outgoing.writableEnded) return;
    if (pending.length === 0) return void outgoing.flushHeaders();
    const chunk = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    pendingLength = 0;
    if (!outgoing.write(chunk)) blocked = true;
    // A pump that waited for this turn's frames to leave goes on unless the client is behind.
    if (!blocked) wakeUp();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    process.nextTick(flush);
  };
  const unblock = () => {
    blocked = false;
    wakeUp();
  };
  outgoing.on('drain', unblock);
  // A client that goes away cancels the run (see clientGoneOf); the pump stops waiting for it in any case.
  outgoing.once('close', unblock);
  // The status line and headers leave with the first frames, or on their own at the end of this turn.
  schedule();
  return {
    send(frame) {
      if (outgoing.destroyed) return false;
      pending.push(frame);
      pendingLength += frame.length;
      schedule();
      return true;
    },
    get full() {
      return blocked || pendingLength >= outgoing.writableHighWaterMark;
    },
    close() {
      flush();
      outgoing.end();
    },
  };
}
