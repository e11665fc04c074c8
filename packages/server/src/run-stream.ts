import { createEvent, type Event, type RunResult, TroupeError } from '@troupe/core';
import { toHttpError } from './http-error.js';
import type { TrackedRun } from './run-tracker.js';
import { sseFrame } from './wire.js';

type RunEvents = AsyncGenerator<Event, RunResult, undefined>;

/** Headers of a server-sent-events response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  // Proxies such as nginx would otherwise buffer the stream.
  'X-Accel-Buffering': 'no',
};

/**
 * Starts a run (`runner.start` or `runner.startResume`) and answers with a stream of its events.
 * Misuse (unknown session, busy session, open interrupts, bad answers) is thrown as an HTTP error
 * before any byte is sent; once the run has started, everything, a failure included, is a frame.
 */
export async function streamRun(tracked: TrackedRun, start: () => Promise<RunEvents>, requestSignal: AbortSignal | undefined): Promise<Response> {
  let events: RunEvents;
  try {
    events = await start();
  } catch (error) {
    tracked.end();
    throw toHttpError(error);
  }
  return new Response(eventStream(tracked, events, events.next(), requestSignal), { status: 200, headers: SSE_HEADERS });
}

/**
 * The run's events as SSE frames, one chunk (so one write) per frame. The stream pulls the next
 * event only when the client has taken the last one, so a slow client slows its run instead of
 * filling a buffer. A client that goes away cancels the run through its abort signal, and the
 * generator is run to its end so the cancellation is stored and the session released.
 */
function eventStream(
  tracked: TrackedRun,
  events: RunEvents,
  first: Promise<IteratorResult<Event, RunResult>>,
  requestSignal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let upcoming: Promise<IteratorResult<Event, RunResult>> | undefined = first;
  let last: Event | undefined;
  let cancelled = false;
  // The client is gone: cancel the run and run its generator to the end. A paused generator
  // (waiting for the client to read) would otherwise never see its abort signal.
  const abandon = async (): Promise<void> => {
    if (cancelled) return;
    cancelled = true;
    tracked.cancel('The client disconnected; the run was cancelled.');
    await drain(upcoming, events);
    tracked.end();
  };
  if (requestSignal) {
    if (requestSignal.aborted) void abandon();
    else requestSignal.addEventListener('abort', () => void abandon(), { once: true });
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const step = upcoming ?? events.next();
        upcoming = undefined;
        let result: IteratorResult<Event, RunResult>;
        try {
          result = await step;
        } catch (error) {
          if (cancelled) return;
          tracked.end();
          // The runner yields the failure as an event before throwing; anything else becomes one here.
          if (last?.errorCode === undefined) controller.enqueue(encoder.encode(sseFrame(failureEvent(error, last))));
          controller.close();
          return;
        }
        // After a cancel, drain() owns the generator and ends the run.
        if (cancelled) return;
        if (result.done) {
          tracked.end();
          controller.close();
          return;
        }
        last = result.value;
        controller.enqueue(encoder.encode(sseFrame(result.value)));
      },
      cancel: abandon,
    },
    { highWaterMark: 1 },
  );
}

/** Runs a cancelled run's generator to its end; its remaining events have no reader. */
async function drain(upcoming: Promise<unknown> | undefined, events: RunEvents): Promise<void> {
  try {
    await upcoming;
    while (!(await events.next()).done) {
      // Nobody reads these: the client is gone. The session stores them all the same.
    }
  } catch {
    // The run ends by throwing its cancellation, which its stored error event already records.
  }
}

function failureEvent(error: unknown, last: Event | undefined): Event {
  const http = toHttpError(error);
  return createEvent({
    invocationId: last?.invocationId ?? '',
    author: last?.author ?? '',
    errorCode: error instanceof TroupeError ? error.code : http.code,
    errorMessage: http.message,
  });
}
