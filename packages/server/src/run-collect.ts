import type { Event, SessionKey } from '@troupe/core';
import { failureEvent, type RunEvents, type RunFailureListener } from './run-stream.js';
import { storeFailureAnswer } from './run-outcome.js';
import type { TrackedRun } from './run-tracker.js';

/**
 * Runs a started run to its end for `POST /run` and returns what `/run_sse` would have sent,
 * partial events left out: its events, and for a run that failed, was cancelled or hit a limit,
 * the terminal error event last, also when the store could not keep it (so a 200 never hides a
 * failure). A run the store stopped rejects instead, with the status that says what the run left
 * stored (see {@link storeFailureAnswer}), so the route answers with it.
 */
export async function collectRun(
  tracked: TrackedRun,
  events: RunEvents,
  onFailure: RunFailureListener,
  session: SessionKey,
): Promise<Event[]> {
  const collected: Event[] = [];
  try {
    for (;;) {
      const step = await events.next();
      if (step.done) break;
      if (!step.value.partial) collected.push(step.value);
    }
  } catch (error) {
    const answer = storeFailureAnswer(error, session);
    if (answer?.answer === 'events') {
      // The run's end is stored; a failure after it (adding the session to memory) is the server's to log.
      if (collected.at(-1)?.errorCode === undefined) onFailure(error);
    } else if (answer) {
      throw answer.error;
    } else if (collected.at(-1)?.errorCode === undefined) {
      // The runner yields its failure as an event before throwing; anything else becomes one here.
      onFailure(error);
      collected.push(failureEvent(error, collected.at(-1)));
    }
  } finally {
    tracked.end(collected.at(-1));
  }
  return collected;
}
