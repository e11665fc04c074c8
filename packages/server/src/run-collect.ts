import type { Event } from '@troupe/core';
import { isStoreFailure } from './http-error.js';
import { failureEvent, type RunEvents, type RunFailureListener } from './run-stream.js';
import type { TrackedRun } from './run-tracker.js';

/**
 * Runs a started run to its end for `POST /run` and returns what `/run_sse` would have sent,
 * partial events left out: its events, and for a run that failed, was cancelled or hit a limit,
 * the terminal error event last, also when the store could not keep it (so a 200 never hides a
 * failure). A run the store stopped (`STORAGE`, `LEASE_LOST`, `STALE_SESSION`) rejects instead, so
 * the route answers with that status.
 */
export async function collectRun(
  tracked: TrackedRun,
  events: RunEvents,
  onFailure: RunFailureListener,
): Promise<Event[]> {
  const collected: Event[] = [];
  try {
    for (;;) {
      const step = await events.next();
      if (step.done) break;
      if (!step.value.partial) collected.push(step.value);
    }
  } catch (error) {
    if (isStoreFailure(error)) throw error;
    // The runner yields its failure as an event before throwing; anything else becomes one here.
    if (collected.at(-1)?.errorCode === undefined) {
      onFailure(error);
      collected.push(failureEvent(error, collected.at(-1)));
    }
  } finally {
    tracked.end(collected.at(-1));
  }
  return collected;
}
