import type { Event } from '../events/event.js';
import { RunCancelledError } from '../errors.js';
import { linkedAbortController } from './abort.js';
import { EventChannel } from './event-channel.js';
import { runTasks } from './run-tasks.js';

/**
 * {@link runTasks} for tasks that are event generators (TeamAgent's skills and items): yields their
 * events as they happen (each task waits until its event has been taken downstream) and returns
 * their results in task order. The first failure aborts the others and is rethrown once all have
 * stopped; a consumer that stops early aborts them too.
 */
export async function* runConcurrently<T>(
  count: number,
  limit: number,
  parentSignal: AbortSignal,
  owner: string,
  start: (index: number, signal: AbortSignal) => AsyncGenerator<Event, T, undefined>,
): AsyncGenerator<Event, T[], undefined> {
  // Aborted when the consumer stops early; the tasks' own signals follow it.
  const consumer = linkedAbortController(parentSignal);
  const channel = new EventChannel();
  const done = runTasks(count, limit, consumer.signal, owner, async (index, signal) => {
    const task = start(index, signal);
    let step = await task.next();
    while (!step.done) {
      await channel.push(step.value);
      step = await task.next();
    }
    return step.value;
  });
  let finished = false;
  try {
    yield* channel.drain(done, () => {
      consumer.abort(new RunCancelledError(`${owner} was stopped.`));
      return consumer.signal.reason;
    });
    const results = await done;
    finished = true;
    return results;
  } finally {
    consumer.dispose();
    // Leave nothing running behind us, even when the consumer stopped early.
    if (!finished) await done.catch(() => undefined);
  }
}
