import type { RunRecordStatus } from '@troupe/core/stores';
import { type Event, TroupeError, isErrorCode } from '@troupe/core';
import type { BackgroundRuns, BackgroundStreamEntry } from './background-runs.js';
import { isRefusalCode, isStoreFailure } from './http-error.js';
import { unreportedEnd } from './queued-run-end.js';
import { failureEvent, type RunFailureListener } from './run-stream.js';
import type { SessionPath } from './run-access.js';
import type { TrackedRun } from './run-tracker.js';

/**
 * Follows a background run to its end (or pause) for `POST /run` and returns what `/run_sse` would
 * have sent, partial events left out, as `collectRun` does for a run in this process: a failure the
 * stream did not show is appended as an error event, and one caused by the store (`STORAGE`,
 * `LEASE_LOST`, `STALE_SESSION`) rejects instead, so the route answers with that status; so does a
 * run the worker's runner refused before storing anything (bad input, open interrupts: a 4xx).
 * `select` picks the entries, as for the stream (a resumed run: those after the resume). `session`
 * is the run's (a run id its caller chose is that session's).
 */
export async function collectQueuedRun(
  queue: BackgroundRuns,
  runId: string,
  session: SessionPath,
  tracked: TrackedRun,
  onFailure: RunFailureListener,
  select: (entries: AsyncIterable<BackgroundStreamEntry>) => AsyncIterable<BackgroundStreamEntry> = (entries) =>
    entries,
): Promise<Event[]> {
  const collected: Event[] = [];
  let end: Event | undefined;
  let endedAs: RunRecordStatus | undefined;
  const onEnd = (status: RunRecordStatus) => (endedAs = status);
  try {
    for await (const entry of select(queue.join(runId, { signal: tracked.signal, session, onEnd }))) {
      if (!entry.event.partial) collected.push(entry.event);
    }
    end = await unreportedEnd(queue, runId, session, collected.at(-1), endedAs);
  } catch (error) {
    // Unless the client went away (nobody reads the answer, and the run goes on), a failure to follow the run is its last event.
    if (!tracked.signal.aborted) {
      onFailure(error);
      collected.push(failureEvent(error, collected.at(-1)));
    }
  } finally {
    tracked.end(collected.at(-1));
  }
  if (end) {
    // A code outside Troupe's list is neither a store failure nor a refusal: the event is kept as it is.
    const error = new TroupeError(
      isErrorCode(end.errorCode) ? end.errorCode : 'ERROR',
      end.errorMessage ?? end.errorCode!,
    );
    // Refused by the worker's runner before it stored anything: the status it would have had in process.
    if (isStoreFailure(error) || (collected.length === 0 && isRefusalCode(error.code))) throw error;
    collected.push(end);
  }
  return collected;
}
