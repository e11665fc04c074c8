import { EventsStopped } from './event-sink.js';

/**
 * How a workflow agent stops a child that is still running (a loop's escalation ends the steps of
 * its iteration): thrown from the parent's sink, it unwinds the child as a generator's `return()`
 * would, and the parent recognises its own stop when it comes back out.
 */
export class ChildStop {
  private thrown: EventsStopped | undefined;

  /** Called inside a sink: stops the child that pushed the event. */
  stop(): never {
    throw (this.thrown ??= new EventsStopped());
  }

  /** True for the error {@link stop} threw (other stops pass on to whoever threw them). */
  caught(error: unknown): boolean {
    return this.thrown !== undefined && error === this.thrown;
  }
}
