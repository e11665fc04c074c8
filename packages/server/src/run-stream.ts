import { createEvent, type Event, type RunResult, TroupeError } from '@troupe/core';
import { toHttpError } from './http-error.js';
import type { TrackedRun } from './run-tracker.js';
import { sseFrame } from './wire.js';

/** A started run, as `runner.start` and `runner.startResume` return it. */
export type RunEvents = AsyncGenerator<Event, RunResult, undefined>;

/** Headers of a server-sent-events response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  // Proxies such as nginx would otherwise buffer the stream.
  'X-Accel-Buffering': 'no',
};

/**
 * Told about a failure of a started run that the runner did not report as an event itself (a bug):
 * the client gets a terminal event without its detail, the server's log gets the error.
 */
export type RunFailureListener = (error: unknown) => void;

/**
 * Starts a run (`runner.start` or `runner.startResume`) and answers with a stream of its events.
 * Misuse (unknown session, busy session, open interrupts, bad answers) is thrown as an HTTP error
 * before any byte is sent; once the run has started, everything, a failure included, is a frame.
 */
export async function streamRun(tracked: TrackedRun, start: () => Promise<RunEvents>, onFailure: RunFailureListener): Promise<Response> {
  let events: RunEvents;
  try {
    events = await start();
  } catch (error) {
    tracked.end();
    throw toHttpError(error);
  }
  return new Response(eventStream(tracked, events, onFailure), { status: 200, headers: SSE_HEADERS });
}

/**
 * The run's events as SSE frames, one chunk (so one write) per frame, pumped by one loop that is
 * the generator's only reader. While the run goes on, the loop takes the next event only when the
 * client has taken the last one, so a slow client slows its run instead of filling a buffer. Once
 * the run is cancelled (the client went away, a cancel request, shutdown), it stops waiting for
 * the client and runs the generator to its end, so the cancellation is stored and the session
 * released even if nobody reads: a cancelled run yields at most a few more events.
 */
function eventStream(tracked: TrackedRun, events: RunEvents, onFailure: RunFailureListener): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  tracked.signal.addEventListener('abort', wakeUp, { once: true });

  const send = (event: Event) => {
    if (!open) return;
    try {
      controller.enqueue(encoder.encode(sseFrame(event)));
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
    let last: Event | undefined;
    let lastStored: Event | undefined;
    try {
      for (;;) {
        await clientWantsMore();
        const step = await events.next();
        if (step.done) break;
        last = step.value;
        if (!step.value.partial) lastStored = step.value;
        send(step.value);
      }
    } catch (error) {
      // The runner yields the failure as an event before throwing; anything else becomes one here.
      if (last?.errorCode === undefined) {
        onFailure(error);
        send(failureEvent(error, last));
      }
    } finally {
      tracked.end(lastStored);
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

/**
 * The terminal event for a run that failed outside the runner's own handling (the runner yields
 * its failures as events itself). Its message is the client's version: no internal detail.
 */
export function failureEvent(error: unknown, last: Event | undefined): Event {
  const http = toHttpError(error);
  return createEvent({
    invocationId: last?.invocationId ?? '',
    author: last?.author ?? '',
    errorCode: error instanceof TroupeError ? error.code : http.code,
    errorMessage: http.clientMessage,
  });
}
