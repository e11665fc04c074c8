import type { Event } from '../events/event.js';

interface Pending<T> {
  event: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Funnels events from concurrent producers (parallel branches, concurrent tool calls) into one
 * stream, with backpressure: a producer's `push` resolves only after the consumer has yielded the
 * event and been resumed, i.e. after the runner appended it. So no producer runs ahead of the
 * session it reads.
 */
export class EventChannel<T = Event> {
  private readonly queue: Pending<T>[] = [];
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  /** Queues an event; resolves once the consumer has taken it downstream. */
  push(event: T): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.error);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.notify();
    });
  }

  /**
   * Yields queued events until `done` settles and the queue is empty. If the consumer stops early
   * (return or throw), every waiting producer is rejected with `stopReason`.
   */
  async *drain(done: Promise<unknown>, stopReason: () => unknown): AsyncGenerator<T, void, undefined> {
    done.then(
      () => this.close(),
      () => this.close(),
    );
    let completed = false;
    // The event the consumer holds: its producer waits for the consumer to come back for the next.
    let inHand: Pending<T> | undefined;
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          inHand = next;
          yield next.event;
          inHand = undefined;
          next.resolve();
          continue;
        }
        if (this.closed) break;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      completed = true;
    } finally {
      if (!completed) {
        const reason = stopReason();
        // The consumer left holding an event: its producer is stopped too, not left waiting forever.
        inHand?.reject(reason);
        this.fail(reason);
      }
    }
  }

  /** Rejects waiting and future pushes. */
  fail(error: unknown): void {
    this.failure ??= { error };
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }

  private close(): void {
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake();
    }
  }
}
