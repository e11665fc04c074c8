import type { TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { type Event, textOf } from '@troupe/core';
import { textPart, toA2aParts } from './parts.js';
import { responseArtifact } from './stored-task.js';

/** One agent turn being streamed: its artifact, what was sent, and the chunk held back. */
interface Segment {
  n: number;
  author: string;
  sent: number;
  text: string;
  held: string | undefined;
}

/**
 * Turns a run's events into artifact updates: what each agent says, streamed. The chunks of one
 * agent's turn (partial events) are appended to one artifact, the latest held back until the next
 * arrives, so that the turn's stored event can close the artifact with it (`lastChunk`): the chunks
 * then add up to the text exactly once. When the stored text differs from what was streamed, it
 * replaces the chunks (`append: false`). Artifacts are numbered as the stored task numbers them.
 */
export class ResponseArtifacts {
  private count: number;
  /** Turns being streamed, by the author and branch of their chunks (parallel branches stream at once). */
  private readonly streaming = new Map<string, Segment>();

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
    const key = `${event.author}\u0000${event.branch}`;
    if (event.partial) {
      const text = textOf(event);
      if (text === '') return [];
      let segment = this.streaming.get(key);
      if (!segment) {
        segment = { n: ++this.count, author: event.author, sent: 0, text: '', held: undefined };
        this.streaming.set(key, segment);
      }
      const out = segment.held === undefined ? [] : [this.chunk(segment, false)];
      segment.held = text;
      segment.text += text;
      return out;
    }
    const segment = this.streaming.get(key);
    this.streaming.delete(key);
    const parts = toA2aParts(event.content);
    if (!segment) return parts.length === 0 ? [] : [this.update(++this.count, event.author, parts, false, true)];
    const whole = parts.length === 1 && parts[0]!.content?.$case === 'text' ? parts[0]!.content.value : undefined;
    if (whole === segment.text) return [this.chunk(segment, true)];
    // The stored turn says something else than its chunks (or nothing): it is what counts.
    return [
      this.chunk(segment, parts.length === 0),
      ...(parts.length === 0 ? [] : [this.update(segment.n, event.author, parts, false, true)]),
    ];
  }

  /** Closes the turns still streaming when the run ends (cancelled, failed) with their held chunks. */
  flush(): TaskArtifactUpdateEvent[] {
    const out = [...this.streaming.values()].map((segment) => this.chunk(segment, true));
    this.streaming.clear();
    return out;
  }

  /** Sends a segment's held chunk. */
  private chunk(segment: Segment, lastChunk: boolean): TaskArtifactUpdateEvent {
    const update = this.update(segment.n, segment.author, [textPart(segment.held ?? '')], segment.sent > 0, lastChunk);
    segment.sent++;
    segment.held = undefined;
    return update;
  }

  private update(
    n: number,
    author: string,
    parts: ReturnType<typeof toA2aParts>,
    append: boolean,
    lastChunk: boolean,
  ): TaskArtifactUpdateEvent {
    const artifact = responseArtifact(n, author, parts);
    // ADK's RemoteA2AAgent stores a closed artifact as a turn of its own session and then the
    // completed status's output again; marked partial, the artifacts stay a live view there and the
    // output is stored once.
    artifact.metadata = { ...artifact.metadata, adk_partial: true };
    return { ...this.ids, artifact, append, lastChunk, metadata: undefined };
  }
}
