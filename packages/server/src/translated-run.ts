import type { Event, RunResult } from '@troupe/core';
import type { RunEvents } from './run-stream.js';

/** What turns a run's events into a protocol's messages (AG-UI events, UI message chunks). */
export interface RunTranslator<T> {
  /** The messages of one event of the run. */
  translate(event: Event): T[];
  /** The end of a run that returned. */
  finish(result: RunResult): T[];
  /**
   * The end of a run that threw; a failure the runner did not report itself (a bug) is told to
   * `onFailure`.
   */
  fail(error: unknown, onFailure: (error: unknown) => void): T[];
}

/**
 * A started run's events through `translator`: what `opening` gives (if given), each
 * event's messages, then the run's end (`finish`, or `fail` when the run threw). Stopping early
 * (`return()`) leaves the run, which the runner then ends as cancelled.
 */
export async function* translatedRun<T>(
  run: RunEvents,
  translator: RunTranslator<T>,
  onFailure: (error: unknown) => void,
  opening?: () => T[],
): AsyncGenerator<T, void, undefined> {
  let result: RunResult;
  try {
    // Only when there is one: even an empty `yield*` defers the run's first step by a few ticks.
    if (opening) yield* opening();
    for (;;) {
      const step = await run.next();
      if (step.done) {
        result = step.value;
        break;
      }
      yield* translator.translate(step.value);
    }
  } catch (error) {
    yield* translator.fail(error, onFailure);
    return;
  } finally {
    // Ends a run this stream stopped following (or whose translation failed), so its session is
    // released; a run that ended is left as it is.
    await run.return(undefined as never).catch(() => undefined);
  }
  yield* translator.finish(result);
}
