import type { StreamResponse, Task } from '@a2a-js/sdk';
import { RunCancelledError } from '@troupe/core';
import { UpdateQueue, isFinalUpdate } from './update-queue.js';

/**
 * A task this process is running: its run's abort signal, its current state (the task as a client
 * that read every update would see it), and the readers of its updates. The run goes on whether
 * anyone reads or not, as A2A requires (a stream's client may go away; the task does not).
 */
export class LiveTask {
  private readonly controller = new AbortController();
  private readonly readers = new Set<UpdateQueue>();
  private current: Task;
  private finish!: () => void;
  private over = false;
  /** Resolves when the run has ended and its final update was published. */
  readonly ended: Promise<void>;

  constructor(
    /** The user whose task it is: other users' requests must not find it. */
    readonly userId: string,
    initial: Task,
  ) {
    this.current = structuredClone(initial);
    this.ended = new Promise((resolve) => (this.finish = resolve));
  }

  get id(): string {
    return this.current.id;
  }

  /** The run's abort signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A copy of the task as it stands. */
  snapshot(): Task {
    return structuredClone(this.current);
  }

  /** Stops the run: it stores its cancellation and ends as `canceled`. */
  cancel(message: string): void {
    if (!this.controller.signal.aborted) this.controller.abort(new RunCancelledError(message));
  }

  /**
   * The task's stream from now on: the task as it stands, then each update until the final one.
   * The reader is registered at once (not at the first read), so a stream taken before the run
   * starts sees every update. Stopping early (a client that went away) only stops the reading.
   */
  subscribe(): AsyncGenerator<StreamResponse, void, undefined> {
    const queue = new UpdateQueue();
    this.readers.add(queue);
    const first = this.snapshot();
    // A run that had ended by now has nothing more to say than the snapshot.
    const endedBefore = this.over;
    const readers = this.readers;
    return (async function* () {
      try {
        yield { payload: { $case: 'task', value: first } } satisfies StreamResponse;
        if (!endedBefore) yield* queue.updates();
      } finally {
        readers.delete(queue);
      }
    })();
  }

  /** Applies an update to the task and hands it to every reader. */
  publish(update: StreamResponse): void {
    apply(this.current, update);
    for (const reader of this.readers) reader.push(update);
    if (isFinalUpdate(update)) this.end();
  }

  /** Marks the run as over (after its final update, or when it could not start). */
  end(): void {
    this.over = true;
    for (const reader of this.readers) reader.close();
    this.finish();
  }
}

/** The task after an update, as A2A clients accumulate it: status replaced, artifacts appended or replaced. */
function apply(task: Task, update: StreamResponse): void {
  const payload = update.payload;
  if (payload?.$case === 'statusUpdate') {
    task.status = structuredClone(payload.value.status);
  } else if (payload?.$case === 'artifactUpdate' && payload.value.artifact) {
    const artifact = payload.value.artifact;
    const existing = task.artifacts.find((a) => a.artifactId === artifact.artifactId);
    if (existing && payload.value.append) existing.parts.push(...structuredClone(artifact.parts));
    else if (existing) Object.assign(existing, structuredClone(artifact));
    else task.artifacts.push(structuredClone(artifact));
  }
}
