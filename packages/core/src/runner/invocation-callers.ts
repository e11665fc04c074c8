import type { Event } from '../events/event.js';
import { EventsStopped } from '../agents/event-sink.js';
import { EventChannel } from '../utils/event-channel.js';
import { runInvocation, type InvocationSetup, type InvocationStream } from './invocation.js';
import type { RunResult } from './run-result.js';

// How callers take an invocation: to the end (`run`), or event by event (`runAsync`, `start`).

/** An invocation's events; returning before the first step releases the claimed session. */
export function claimed(setup: InvocationSetup): AsyncGenerator<Event, RunResult, undefined> {
  const events = streamInvocation(setup);
  let started = false;
  return {
    next: (...args) => {
      started = true;
      return events.next(...args);
    },
    return: async (value) => {
      if (!started) await setup.claim.release();
      started = true;
      return events.return(value);
    },
    throw: async (error) => {
      if (!started) await setup.claim.release();
      started = true;
      return events.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** Runs an invocation to the end; failures inside the tree become the result's status. */
export async function collect(setup: InvocationSetup): Promise<RunResult> {
  return (await runInvocation(setup)).result;
}

/**
 * An invocation's events for a caller that iterates them: each is handed over once stored, the
 * agent going on only when the caller asks for the next. A failure inside the tree is yielded as
 * its error event and then thrown; a caller that stops early abandons the run (status `cancelled`).
 */
export async function* streamInvocation(setup: InvocationSetup): AsyncGenerator<Event, RunResult, undefined> {
  const channel = new EventChannel();
  const stream: InvocationStream = { deliver: (event) => channel.push(event) };
  const done = runInvocation(setup, stream);
  let completed = false;
  try {
    yield* channel.drain(done, () => {
      stream.leave?.();
      return new EventsStopped();
    });
    completed = true;
  } finally {
    // The run ends (its session released, plugins told) before the caller's return() resolves.
    if (!completed) await done.catch(() => undefined);
  }
  const { result, thrown } = await done;
  if (thrown) throw thrown;
  return result;
}
