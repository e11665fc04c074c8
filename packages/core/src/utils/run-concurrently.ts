import type { Event } from '../events/event.js';
import { RunCancelledError } from '../errors.js';
import { linkedAbortController } from './abort.js';
import { EventChannel } from './event-channel.js';

/**
 * Runs `count` event-producing tasks with at most `limit` at once, yielding their events as they
 * happen (each task waits until its event has been taken downstream), and returns their results in
 * task order. The first failure aborts the others (through the signal each task gets) and is
 * rethrown once all have stopped; a consumer that stops early aborts them too.
 */
export async function* runConcurrently<T>(
  count: number,
  limit: number,
  parentSignal: AbortSignal,
  owner: string,
  start: (index: number, signal: AbortSignal) => AsyncGenerator<Event, T, undefined>,
): AsyncGenerator<Event, T[], undefined> {
  const controller = linkedAbortController(parentSignal, { manyListeners: true });
  const channel = new EventChannel();
  const results: T[] = new Array(count);
  let failure: { error: unknown } | undefined;
  let next = 0;

  const runTask = async (index: number): Promise<void> => {
    try {
      const task = start(index, controller.signal);
      let step = await task.next();
      while (!step.done) {
        await channel.push(step.value);
        step = await task.next();
      }
      results[index] = step.value;
    } catch (error) {
      if (!failure) {
        failure = { error };
        controller.abort(
          new RunCancelledError(`Cancelled because another branch of ${owner} failed.`, { cause: error }),
        );
      }
    }
  };
  const worker = async (): Promise<void> => {
    while (next < count && !failure && !controller.signal.aborted) await runTask(next++);
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, count); i++) workers.push(worker());
  const done = Promise.all(workers);

  let finished = false;
  try {
    yield* channel.drain(done, () => {
      controller.abort(new RunCancelledError(`${owner} was stopped.`));
      return controller.signal.reason;
    });
    await done;
    finished = true;
  } finally {
    controller.dispose();
    // Leave nothing running behind us, even when the consumer stopped early.
    if (!finished) await done.catch(() => undefined);
  }
  if (failure) throw failure.error;
  return results;
}
