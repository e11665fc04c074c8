import { createEvent, type Event, type RunResult, TroupeError } from '@troupe/core';
import { storedOutcomeOf } from '@troupe/core/hosting';
import { isStoreFailure, toHttpError } from './http-error.js';
import { pacedSse } from './paced-sse.js';
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
export async function streamRun(
  tracked: TrackedRun,
  start: () => Promise<RunEvents>,
  onFailure: RunFailureListener,
): Promise<Response> {
  let events: RunEvents;
  try {
    events = await start();
  } catch (error) {
    tracked.end();
    throw toHttpError(error);
  }
  return eventStream(tracked, events, onFailure);
}

/** The run's events as SSE frames, paced by the client (see {@link pacedSse}). */
function eventStream(tracked: TrackedRun, events: RunEvents, onFailure: RunFailureListener): Response {
  let last: Event | undefined;
  let lastStored: Event | undefined;
  return pacedSse(
    tracked,
    events,
    {
      frame: (event) => sseFrame(event),
      onItem(event) {
        last = event;
        if (!event.partial) lastStored = event;
      },
      onError(error) {
        // The runner yields the failure as an event before throwing; anything else becomes one here.
        if (last?.errorCode !== undefined) return [];
        onFailure(error);
        // The run's end is stored; a store failure after it (adding the session to memory) is not the run's.
        if (isStoreFailure(error) && storedOutcomeOf(error)?.stored === 'outcome') return [];
        return [failureEvent(error, last)];
      },
      onEnd: () => tracked.end(lastStored),
    },
    { status: 200, headers: SSE_HEADERS },
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
