import type { Content, Part } from '../../events/content.js';
import type { Event, EventCompaction } from '../../events/event.js';
import { isHistoryRewrite, rewoundEvents } from '../../events/rewound-events.js';
import { isBranchVisible } from './branch-visibility.js';

export { isHistoryRewrite } from '../../events/rewound-events.js';

/** How compaction and rewind records reshape an event list's history. */
export interface HistoryPlan {
  /** Events history leaves out: rewound ones, and those a compaction summarises. */
  skipped: ReadonlySet<Event>;
  /** Summaries to show just before an event (the last event each one summarises). */
  summariesAt: ReadonlyMap<Event, readonly Content[]>;
}

/** The text the model reads in place of compacted events. */
export const SUMMARY_PREFIX = '[Summary of the earlier conversation]';

interface Kept {
  covered: Event[];
  from: number;
  to: number;
  /** Where the compaction event is (a later one wins a tie). */
  at: number;
  compaction: EventCompaction;
}

/**
 * Works out which events history skips and where summaries go. A compaction that is itself rewound
 * is ignored; one whose range another compaction's range contains (ADK: "subsumed") is dropped; the
 * others each stand, as a summary placed where their last event was, for the events of their range
 * that the root agent's history shows (`fanIn`: the tree's fan-in agents).
 */
export function planHistory(events: readonly Event[], fanIn: ReadonlySet<string>): HistoryPlan {
  const rewound = rewoundEvents(events);
  const indexOf = new Map<string, number>();
  for (let i = 0; i < events.length; i++) indexOf.set(events[i]!.id, i);
  const ranges: Kept[] = [];
  for (let i = 0; i < events.length; i++) {
    const record = events[i]!;
    const compaction = record.actions.compaction;
    if (!compaction || rewound.has(record)) continue;
    const [from, to] = rangeOf(events, i, compaction, indexOf);
    if (from > to) continue;
    const covered: Event[] = [];
    for (let j = from; j <= to; j++) {
      const event = events[j]!;
      if (rewound.has(event) || isHistoryRewrite(event) || !isBranchVisible(event.branch, '', fanIn)) continue;
      covered.push(event);
    }
    if (covered.length > 0) ranges.push({ covered, from, to, at: i, compaction });
  }
  const skipped = new Set<Event>(rewound);
  const summariesAt = new Map<Event, Content[]>();
  for (const range of ranges) {
    const subsumed = ranges.some(
      (other) =>
        other !== range &&
        other.from <= range.from &&
        other.to >= range.to &&
        (other.from < range.from || other.to > range.to || other.at > range.at),
    );
    if (subsumed) continue;
    for (const event of range.covered) skipped.add(event);
    const anchor = range.covered[range.covered.length - 1]!;
    const list = summariesAt.get(anchor) ?? [];
    list.push(summaryContent(range.compaction.summary));
    summariesAt.set(anchor, list);
  }
  return { skipped, summariesAt };
}

/** Index range of the compacted events: by their ids when recorded, else by timestamps (ADK). */
function rangeOf(
  events: readonly Event[],
  at: number,
  compaction: EventCompaction,
  indexOf: Map<string, number>,
): [number, number] {
  const start = compaction.startEventId === undefined ? undefined : indexOf.get(compaction.startEventId);
  const end = compaction.endEventId === undefined ? undefined : indexOf.get(compaction.endEventId);
  if (start !== undefined && end !== undefined && end < at) return [start, end];
  let from = -1;
  let to = -2;
  for (let j = 0; j < at; j++) {
    const ts = events[j]!.timestamp;
    if (ts < compaction.startTimestamp || ts > compaction.endTimestamp) continue;
    if (from < 0) from = j;
    to = j;
  }
  return [from, to];
}

function summaryContent(summary: Content): Content {
  const texts: string[] = [];
  for (const part of summary.parts) if ('text' in part && !part.thought && part.text) texts.push(part.text);
  const parts: Part[] = [{ text: `${SUMMARY_PREFIX} ${texts.join('\n')}` }];
  return { role: 'user', parts };
}
