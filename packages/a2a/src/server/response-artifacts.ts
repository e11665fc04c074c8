import type { TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { type Event, textOf } from '@troupe/core';
import { textPart, toA2aParts } from './parts.js';
import { responseArtifact } from './stored-task.js';

/**
 * Turns a run's events into artifact updates: what each agent says, streamed. The chunks of one
 * agent's turn (partial events) go to one artifact, appended; the stored event with the whole
 * turn then replaces them (`append: false, lastChunk: true`), so a client that missed chunks still
 * ends with the full text. Artifacts are numbered as the stored task numbers them.
 */
export class ResponseArtifacts {
  private count: number;
  /** Artifacts being streamed, by the author and branch of their chunks. */
  private readonly streaming = new Map<string, { n: number; chunks: number }>();

  constructor(
    private readonly ids: { taskId: string; contextId: string },
    /** Artifacts the task already has (a resumed task's earlier turns). */
    existing: number,
  ) {
    this.count = existing;
  }

  /** The artifact updates for one event of the run (none for the user's, or for tool calls alone). */
  updatesFor(event: Event): TaskArtifactUpdateEvent[] {
    if (event.author === 'user') return [];
    // Parallel branches stream at once: their chunks are told apart by author and branch.
    const key = `${event.author}\u0000${event.branch}`;
    if (event.partial) {
      const text = textOf(event);
      if (text === '') return [];
      let segment = this.streaming.get(key);
      if (!segment) {
        segment = { n: ++this.count, chunks: 0 };
        this.streaming.set(key, segment);
      }
      return [this.update(segment.n, event.author, [textPart(text)], segment.chunks++ > 0, false)];
    }
    const segment = this.streaming.get(key);
    this.streaming.delete(key);
    const parts = toA2aParts(event.content);
    if (parts.length === 0) return [];
    return [this.update(segment?.n ?? ++this.count, event.author, parts, false, true)];
  }

  private update(n: number, author: string, parts: ReturnType<typeof toA2aParts>, append: boolean, lastChunk: boolean): TaskArtifactUpdateEvent {
    const artifact = responseArtifact(n, author, parts);
    // ADK's RemoteA2AAgent stores a final artifact as a turn of its own session and then the
    // completed status's output again; marked partial, the artifacts stay a live view there and the
    // output is stored once.
    artifact.metadata = { ...artifact.metadata, adk_partial: true };
    return { ...this.ids, artifact, append, lastChunk, metadata: undefined };
  }
}
