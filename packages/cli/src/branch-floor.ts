import type { Event } from '@troupe/core';

/** The events of one branch waiting for the floor, and whether the branch has finished its part. */
interface Waiting {
  readonly branch: string;
  readonly events: Event[];
  done: boolean;
}

/**
 * Orders the events of branches that run at the same time (a ParallelAgent's children, a team's
 * items) so that the transcript reads like a conversation: the first branch to stream a message
 * gets the floor and streams it live; the others are held back and shown whole, one after the
 * other, once the floor is free. A held branch that has finished is shown in one piece; one still running
 * gets the floor: what it said so far is shown, the rest streams. Nothing is dropped or repeated:
 * every event comes out exactly once, in its branch's order.
 *
 * @example
 * const floor = new BranchFloor();
 * for await (const event of events) for (const ready of floor.push(event)) render(ready);
 * for (const ready of floor.finish()) render(ready);
 */
export class BranchFloor {
  private floor: string | undefined;
  private readonly waiting: Waiting[] = [];

  /** Takes the next event; returns the events to show now, in order (possibly none, possibly several). */
  push(event: Event): Event[] {
    const branch = event.branch;
    if (this.floor === undefined && this.waiting.length === 0) {
      if (!endsPart(event)) this.floor = branch;
      return [event];
    }
    if (branch === this.floor) {
      if (!endsPart(event)) return [event];
      this.floor = undefined;
      return [event, ...this.handOver()];
    }
    let held = this.waiting.find((w) => w.branch === branch);
    if (!held) {
      held = { branch, events: [], done: false };
      this.waiting.push(held);
    }
    held.events.push(event);
    held.done = endsPart(event);
    return this.floor === undefined ? this.handOver() : [];
  }

  /** Releases everything still held (the end of a turn), finished branches first. */
  finish(): Event[] {
    this.floor = undefined;
    const out: Event[] = [];
    for (const held of this.waiting.splice(0).sort((a, b) => Number(b.done) - Number(a.done))) out.push(...held.events);
    return out;
  }

  /** The floor is free: finished branches are shown whole, then the first still running gets the floor. */
  private handOver(): Event[] {
    const out: Event[] = [];
    for (let i = 0; i < this.waiting.length;) {
      const held = this.waiting[i]!;
      if (!held.done) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      out.push(...held.events);
    }
    const next = this.waiting.shift();
    if (next) {
      this.floor = next.branch;
      out.push(...next.events);
    }
    return out;
  }
}

/**
 * True when the event completes a message of its branch: every stored (non-partial) event does;
 * streamed chunks lead up to one. A branch holds the floor only while its message streams, so a
 * branch waiting on a tool (an AgentTool's agent, on its own branch) never holds up the others.
 */
function endsPart(event: Event): boolean {
  return event.partial !== true;
}
