import { type Event as AgUiEvent, EventType } from '@ag-ui/core';
import type { Event } from '@troupe/core';

/** A message being streamed: its id and the text sent so far. */
interface OpenMessage {
  id: string;
  sent: string;
}

/** What one agent on one branch is streaming: its answer, and its reasoning (thought parts). */
interface Lane {
  text?: OpenMessage;
  thought?: OpenMessage;
}

/**
 * The messages agents are streaming. Every agent on every branch is a lane of its own, so the
 * branches of a ParallelAgent (or agents behind AgentTools) stream interleaved messages, each with
 * its own id. A lane's message opens on its first chunk (its id is that chunk's event id) and
 * closes with the model turn's final event, which also carries any text not streamed yet.
 */
export class MessageLanes {
  private readonly lanes = new Map<string, Lane>();

  /** The AG-UI events of a partial (streamed) event. */
  partial(event: Event): AgUiEvent[] {
    const lane = this.lane(event);
    const out: AgUiEvent[] = [];
    for (const part of event.content?.parts ?? []) {
      if (!('text' in part) || part.text === '') continue;
      if (part.thought) {
        lane.thought ??= this.open(out, reasoningStart(`${event.id}.thought`));
        out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: lane.thought.id, delta: part.text });
        lane.thought.sent += part.text;
      } else {
        lane.text ??= this.open(out, [textStart(event.id, event.author)]);
        out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: lane.text.id, delta: part.text });
        lane.text.sent += part.text;
      }
    }
    return out;
  }

  /**
   * The AG-UI events of a model turn's final event with this text and thought text: what the
   * lane streamed is completed and closed, or the whole message is sent. Returns the id of the
   * turn's text message, if it has one, which holds the turn's tool calls.
   */
  final(event: Event, text: string, thought: string): { events: AgUiEvent[]; messageId: string | undefined } {
    const lane = this.lane(event);
    const events: AgUiEvent[] = [];
    if (lane.thought || thought) {
      const open = lane.thought ?? this.open(events, reasoningStart(`${event.id}.thought`));
      pushRest(events, EventType.REASONING_MESSAGE_CONTENT, open, thought);
      events.push(...reasoningEnd(open.id));
    }
    let messageId: string | undefined;
    if (lane.text || text) {
      const open = lane.text ?? this.open(events, [textStart(event.id, event.author)]);
      pushRest(events, EventType.TEXT_MESSAGE_CONTENT, open, text);
      events.push({ type: EventType.TEXT_MESSAGE_END, messageId: open.id });
      messageId = open.id;
    }
    this.lanes.delete(laneKey(event));
    return { events, messageId };
  }

  /** Closes every message still open: a run that ended mid-stream (cancelled, failed). */
  closeAll(): AgUiEvent[] {
    const events: AgUiEvent[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.thought) events.push(...reasoningEnd(lane.thought.id));
      if (lane.text) events.push({ type: EventType.TEXT_MESSAGE_END, messageId: lane.text.id });
    }
    this.lanes.clear();
    return events;
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

  private open(out: AgUiEvent[], start: AgUiEvent[]): OpenMessage {
    out.push(...start);
    return { id: (start[0] as { messageId: string }).messageId, sent: '' };
  }
}

function laneKey(event: Event): string {
  return `${event.branch}\u0000${event.path}`;
}

function textStart(messageId: string, author: string): AgUiEvent {
  return { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant', name: author };
}

function reasoningStart(messageId: string): AgUiEvent[] {
  return [
    { type: EventType.REASONING_START, messageId },
    { type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' },
  ];
}

function reasoningEnd(messageId: string): AgUiEvent[] {
  return [
    { type: EventType.REASONING_MESSAGE_END, messageId },
    { type: EventType.REASONING_END, messageId },
  ];
}

/**
 * Sends what the final text adds to what was streamed. When the final text is not a continuation
 * of the chunks (a callback replaced the answer), what was streamed stands: a delta cannot retract.
 */
function pushRest(
  events: AgUiEvent[],
  type: EventType.TEXT_MESSAGE_CONTENT | EventType.REASONING_MESSAGE_CONTENT,
  open: OpenMessage,
  full: string,
): void {
  if (!full.startsWith(open.sent) || full.length === open.sent.length) return;
  events.push({ type, messageId: open.id, delta: full.slice(open.sent.length) });
  open.sent = full;
}
