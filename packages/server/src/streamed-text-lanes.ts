import type { Event } from '@troupe/core';

/** What an agent streams: its answer (`text`), or its reasoning (thought parts). */
export type LaneKind = 'text' | 'reasoning';

/** How a protocol writes a streamed message: its opening, its deltas, its end. */
export interface LaneEncoding<T> {
  /** Added to the event id to name a reasoning message (a text message is named by the event id). */
  reasoningIdSuffix: string;
  /** What opens a message with this id, on the agent's first chunk. */
  start(kind: LaneKind, id: string, event: Event): T[];
  /** What adds text to the open message. */
  delta(kind: LaneKind, id: string, delta: string): T;
  /** What closes the message. */
  end(kind: LaneKind, id: string): T[];
}

/** A message being streamed: its id and the text sent so far. */
interface OpenMessage {
  id: string;
  sent: string;
}

/** What one agent on one branch is streaming. */
type Lane = Partial<Record<LaneKind, OpenMessage>>;

/**
 * The text and reasoning messages agents are streaming, written by a protocol's
 * {@link LaneEncoding}. Every agent on every branch is a lane of its own, so the branches of a
 * ParallelAgent (or agents behind AgentTools) stream interleaved messages, each with its own id. A
 * lane's message opens on its first chunk (its id is that chunk's event id) and closes with the
 * model turn's final event, which also carries any text not streamed yet.
 */
export class StreamedTextLanes<T> {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly encoding: LaneEncoding<T>) {}

  /** What a partial (streamed) event adds: the deltas of its text and thought parts. */
  partial(event: Event): T[] {
    const lane = this.lane(event);
    const out: T[] = [];
    for (const part of event.content?.parts ?? []) {
      if (!('text' in part) || part.text === '') continue;
      const kind: LaneKind = part.thought ? 'reasoning' : 'text';
      const open = (lane[kind] ??= this.open(out, kind, event));
      out.push(this.encoding.delta(kind, open.id, part.text));
      open.sent += part.text;
    }
    return out;
  }

  /**
   * What a model turn's final event with this text and reasoning adds: what the lane streamed is
   * completed and closed, or the whole message is sent at once (a run that does not stream). Also
   * gives the id of the turn's text message, if it has one.
   */
  final(event: Event, text: string, reasoning: string): { out: T[]; textId: string | undefined } {
    const lane = this.lane(event);
    const out: T[] = [];
    this.complete(out, lane, 'reasoning', event, reasoning);
    const textId = this.complete(out, lane, 'text', event, text);
    this.lanes.delete(laneKey(event));
    return { out, textId };
  }

  /** Closes every message still open: a run that ended mid-stream (cancelled, failed). */
  closeAll(): T[] {
    const out: T[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.reasoning) out.push(...this.encoding.end('reasoning', lane.reasoning.id));
      if (lane.text) out.push(...this.encoding.end('text', lane.text.id));
    }
    this.lanes.clear();
    return out;
  }

  private lane(event: Event): Lane {
    const key = laneKey(event);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = {};
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private open(out: T[], kind: LaneKind, event: Event): OpenMessage {
    const id = kind === 'text' ? event.id : `${event.id}${this.encoding.reasoningIdSuffix}`;
    out.push(...this.encoding.start(kind, id, event));
    return { id, sent: '' };
  }

  /**
   * Sends what the final text adds to what was streamed, and closes the message; returns its id.
   * When the final text is not a continuation of the chunks (a callback replaced the answer), what
   * was streamed stands: a delta cannot retract.
   */
  private complete(out: T[], lane: Lane, kind: LaneKind, event: Event, full: string): string | undefined {
    if (!lane[kind] && !full) return undefined;
    const open = lane[kind] ?? this.open(out, kind, event);
    if (full.startsWith(open.sent) && full.length !== open.sent.length) {
      out.push(this.encoding.delta(kind, open.id, full.slice(open.sent.length)));
      open.sent = full;
    }
    out.push(...this.encoding.end(kind, open.id));
    return open.id;
  }
}

function laneKey(event: Event): string {
  return `${event.branch}\u0000${event.path}`;
}
