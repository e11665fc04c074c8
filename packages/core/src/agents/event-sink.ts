import type { Event } from '../events/event.js';
import { EventChannel } from '../utils/event-channel.js';

/**
 * Where an agent hands its events, the push-based path events travel inside a run. The promise
 * settles once the event has been taken downstream: stored by the runner and, when a caller
 * iterates the run, taken by that caller, so an agent never runs ahead of the session it reads
 * (the same backpressure as a chain of async generators, without a generator per tree level).
 * It rejects to stop the agent: with {@link EventsStopped} when the consumer is gone, else with
 * the reason the run ends.
 */
export type EventSink = (event: Event) => Promise<void>;

/**
 * What the runner's sink returns for an event it took in the turn it was pushed (an append with no
 * I/O): already settled, so a caller that sees this very promise can go on in the same turn.
 * @internal
 */
export const TAKEN: Promise<void> = Promise.resolve();

/**
 * Thrown into an agent by its sink when whatever consumed its events stopped taking them: the
 * consumer of `runAsync` returned early, the invocation ended (`endInvocation`), or an enclosing
 * workflow agent stops a child (a loop's escalation). It unwinds the agent like a generator's
 * `return()`: agents let it pass without treating it as their failure.
 */
export class EventsStopped extends Error {
  constructor() {
    super('The events of this agent are no longer taken.');
    this.name = 'EventsStopped';
  }
}

export function isEventsStopped(error: unknown): error is EventsStopped {
  return error instanceof EventsStopped;
}

/** Hands every event of `events` to `sink`, one at a time; a sink that throws ends the generator (its `finally` runs). */
export async function drainInto(events: AsyncIterable<Event>, sink: EventSink): Promise<void> {
  for await (const event of events) await sink(event);
}

/**
 * The pull-based view of push-based work: runs `work` with a push function and yields what it
 * pushes, each push resolving once the consumer has asked for the next item; returns what `work`
 * resolves with. A consumer that stops early rejects the waiting push with {@link EventsStopped} and
 * waits for `work` to unwind. Agents' `runAsync` and model calls held for guardrails are made this way.
 */
export async function* generatorOf<T = Event, R = void>(
  work: (push: (item: T) => Promise<void>) => Promise<R>,
): AsyncGenerator<T, R, undefined> {
  const channel = new EventChannel<T>();
  let result: R | undefined;
  const done = work((item) => channel.push(item)).then((value) => {
    result = value;
  });
  let completed = false;
  try {
    yield* channel.drain(done, () => new EventsStopped());
    completed = true;
  } finally {
    // The consumer left: what the work throws while it unwinds has no one to go to.
    if (!completed) await done.catch(() => undefined);
  }
  await done;
  return result as R;
}
