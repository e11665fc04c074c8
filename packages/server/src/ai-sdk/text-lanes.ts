import type { Event } from '@troupe/core';
import type { TroupePartMetadata, UiMessageChunk } from './ui-message-chunk.js';

/** A text or reasoning part being streamed: its id and the text sent so far. */
interface OpenPart {
  id: string;
  sent: string;
}

/** What one agent on one branch is streaming: its answer, and its reasoning (thought parts). */
interface Lane {
  text?: OpenPart;
  reasoning?: OpenPart;
}

/**
 * The text and reasoning parts agents are streaming into the assistant message. Every agent on
 * every branch is a lane of its own, so the branches of a ParallelAgent stream interleaved parts,
 * each with its own id. A lane's part opens on its first chunk (its id is that chunk's event id)
 * and closes with the model turn's final event, which also carries any text not streamed yet.
 */
export class TextLanes {
  private readonly lanes = new Map<string, Lane>();

  /** The chunks of a partial (streamed) event: the deltas of its text and thought parts. */
  partial(event: Event): UiMessageChunk[] {
    const lane = this.lane(event);
    const out: UiMessageChunk[] = [];
    for (const part of event.content?.parts ?? []) {
      if (!('text' in part) || part.text === '') continue;
      if (part.thought) {
        lane.reasoning ??= open(out, 'reasoning-start', `${event.id}.reasoning`, event);
        out.push({ type: 'reasoning-delta', id: lane.reasoning.id, delta: part.text });
        lane.reasoning.sent += part.text;
      } else {
        lane.text ??= open(out, 'text-start', event.id, event);
        out.push({ type: 'text-delta', id: lane.text.id, delta: part.text });
        lane.text.sent += part.text;
      }
    }
    return out;
  }

  /**
   * The chunks of a model turn's final event with this text and reasoning: what the lane streamed
   * is completed and closed, or the whole part is sent at once (a run that does not stream).
   */
  final(event: Event, text: string, reasoning: string): UiMessageChunk[] {
    const lane = this.lane(event);
    const out: UiMessageChunk[] = [];
    if (lane.reasoning || reasoning) {
      const part = lane.reasoning ?? open(out, 'reasoning-start', `${event.id}.reasoning`, event);
      pushRest(out, 'reasoning-delta', part, reasoning);
      out.push({ type: 'reasoning-end', id: part.id });
    }
    if (lane.text || text) {
      const part = lane.text ?? open(out, 'text-start', event.id, event);
      pushRest(out, 'text-delta', part, text);
      out.push({ type: 'text-end', id: part.id });
    }
    this.lanes.delete(laneKey(event));
    return out;
  }

  /** Closes every part still open: a run that ended mid-stream (cancelled, failed). */
  closeAll(): UiMessageChunk[] {
    const out: UiMessageChunk[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.reasoning) out.push({ type: 'reasoning-end', id: lane.reasoning.id });
      if (lane.text) out.push({ type: 'text-end', id: lane.text.id });
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
}

function laneKey(event: Event): string {
  return `${event.branch}\u0000${event.path}`;
}

/** Opens a part; the agent that speaks is named in its provider metadata (the AI SDK has no author). */
function open(out: UiMessageChunk[], type: 'text-start' | 'reasoning-start', id: string, event: Event): OpenPart {
  const providerMetadata: TroupePartMetadata = { troupe: { author: event.author, path: event.path } };
  out.push(type === 'text-start' ? { type, id, providerMetadata } : { type, id, providerMetadata });
  return { id, sent: '' };
}

/**
 * Sends what the final text adds to what was streamed. When the final text is not a continuation
 * of the chunks (a callback replaced the answer), what was streamed stands: a delta cannot retract.
 */
function pushRest(out: UiMessageChunk[], type: 'text-delta' | 'reasoning-delta', part: OpenPart, full: string): void {
  if (!full.startsWith(part.sent) || full.length === part.sent.length) return;
  const delta = full.slice(part.sent.length);
  out.push(type === 'text-delta' ? { type, id: part.id, delta } : { type, id: part.id, delta });
  part.sent = full;
}
