import { TaskState, type StreamResponse } from '@a2a-js/sdk';

/** States after which a task's stream ends (A2A: terminal ones, and input-required, which waits for the client). */
const FINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
]);

/** True for the update that ends a task's stream. */
export function isFinalUpdate(update: StreamResponse): boolean {
  const payload = update.payload;
  return (
    payload?.$case === 'statusUpdate' &&
    payload.value.status !== undefined &&
    FINAL_STATES.has(payload.value.status.state)
  );
}

/**
 * One reader's updates of a live task, waiting to be read. The run does not wait for readers (a
 * slow or gone client must not hold the task up), so the queue cannot push back; instead it stays
 * small by merging streamed text: a chunk appended to the artifact the previous queued chunk
 * appended to joins that chunk. What remains is one entry per stored event at most.
 */
export class UpdateQueue {
  private readonly queue: StreamResponse[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  /** Adds an update (a copy: the queue may merge into it later). */
  push(update: StreamResponse): void {
    if (this.closed) return;
    const last = this.queue[this.queue.length - 1];
    if (!(last && mergeChunk(last, update))) this.queue.push(structuredClone(update));
    this.wake?.();
  }

  /** Ends the updates once the queued ones are read (the task's run ended without a final update). */
  close(): void {
    this.closed = true;
    this.wake?.();
  }

  /** The updates in order, ending after the final one (or when closed). */
  async *updates(): AsyncGenerator<StreamResponse, void, undefined> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        if (isFinalUpdate(next)) return;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** Appends `next`'s text to `last` when both are streamed chunks of one artifact; true if it did. */
function mergeChunk(last: StreamResponse, next: StreamResponse): boolean {
  if (last.payload?.$case !== 'artifactUpdate' || next.payload?.$case !== 'artifactUpdate') return false;
  const a = last.payload.value;
  const b = next.payload.value;
  if (
    !b.append ||
    a.lastChunk ||
    b.lastChunk ||
    a.artifact?.artifactId !== b.artifact?.artifactId ||
    !a.artifact ||
    !b.artifact
  )
    return false;
  const tail = a.artifact.parts[a.artifact.parts.length - 1];
  const add = b.artifact.parts;
  if (add.length === 1 && tail?.content?.$case === 'text' && add[0]!.content?.$case === 'text') {
    tail.content = { $case: 'text', value: tail.content.value + add[0]!.content.value };
  } else {
    a.artifact.parts.push(...structuredClone(add));
  }
  return true;
}
