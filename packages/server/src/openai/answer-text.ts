import { contentText, type Event } from '@troupe/core';

/** What separates the texts of two model turns in the one assistant message. */
export const TURN_SEPARATOR = '\n\n';

/**
 * The turn's text as one assistant message, written as it is produced: what every agent said in
 * the turn (not its reasoning), each model turn's text apart from the next by a blank line.
 *
 * A chat completion has one content stream, while agents on parallel branches stream at once.
 * Each agent on each branch is a lane; the first lane to stream holds the message until its model
 * turn ends, and the others' chunks are not sent: their text goes out whole when their turn ends
 * and the message is free. So the content is never two answers interleaved.
 */
export class AnswerText {
  /** The lane streaming now, and what it sent. */
  private holder: { lane: string; sent: string } | undefined;
  /** Lanes whose chunks were held back: their turn's text goes out whole when it ends. */
  private readonly held = new Set<string>();
  /** Texts of turns that ended while another lane held the message. */
  private readonly waiting: string[] = [];
  private written = false;

  /** True once any text was sent. */
  get isEmpty(): boolean {
    return !this.written;
  }

  /** The deltas of a streamed chunk (partial event). */
  partial(event: Event): string[] {
    const text = agentText(event);
    if (text === '') return [];
    const lane = laneOf(event);
    if (this.holder?.lane === lane) {
      this.holder.sent += text;
      return [text];
    }
    if (this.holder || this.held.has(lane)) {
      this.held.add(lane);
      return [];
    }
    this.holder = { lane, sent: text };
    return [this.separated(text)];
  }

  /** The deltas of a stored event: the rest of a streamed turn, or a whole turn's text. */
  final(event: Event): string[] {
    const text = agentText(event);
    const lane = laneOf(event);
    this.held.delete(lane);
    if (this.holder?.lane === lane) {
      const { sent } = this.holder;
      this.holder = undefined;
      // A callback may have replaced the streamed answer: what was sent stands, as a delta cannot retract.
      const rest = text.startsWith(sent) ? text.slice(sent.length) : '';
      return [...(rest === '' ? [] : [rest]), ...this.waiting.splice(0).map((t) => this.separated(t))];
    }
    if (text === '') return [];
    if (this.holder) {
      this.waiting.push(text);
      return [];
    }
    return [this.separated(text)];
  }

  /** The deltas left when the turn ends: texts still waiting for a lane that never finished (a failed run). */
  end(): string[] {
    this.holder = undefined;
    return this.waiting.splice(0).map((t) => this.separated(t));
  }

  /** `text` written after what came before it, apart from it by {@link TURN_SEPARATOR}. */
  separated(text: string): string {
    const out = this.written ? `${TURN_SEPARATOR}${text}` : text;
    this.written = true;
    return out;
  }
}

/** What an agent said in an event: its non-thought text. The user's own events and custom events say nothing. */
function agentText(event: Event): string {
  if (event.author === 'user' || event.customEvent || event.actions.compaction) return '';
  return contentText(event.content);
}

function laneOf(event: Event): string {
  return `${event.branch}\u0000${event.path}`;
}
