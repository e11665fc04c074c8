import type { WireEvent } from '../types.js';

/**
 * The events a rewind took back (as core's `rewoundEventIds`): for each rewind event, from the
 * first event of the invocation it rewound to before, up to the rewind event itself. They stay in
 * the session but are no longer part of its history or state.
 */
export function rewoundIds(events: readonly WireEvent[]): Set<string> {
  const ids = new Set<string>();
  const first = new Map<string, number>();
  events.forEach((event, index) => {
    if (!first.has(event.invocationId)) first.set(event.invocationId, index);
    const target = event.actions.rewindBeforeInvocationId;
    const from = target === undefined ? undefined : first.get(target);
    if (from === undefined || from >= index) return;
    for (let i = from; i < index; i++) ids.add(events[i]!.id);
  });
  return ids;
}

/** Where an invocation starts: the index of its first event, or -1. */
export function invocationStart(events: readonly WireEvent[], invocationId: string, before = events.length): number {
  for (let i = 0; i < before; i++) if (events[i]!.invocationId === invocationId) return i;
  return -1;
}

/** What a compaction event summarises: how many events, and the summary's text. */
export interface CompactionView {
  count: number;
  summary: string;
}

/** The compaction an event records, if it records one. */
export function compactionOf(events: readonly WireEvent[], index: number): CompactionView | undefined {
  const compaction = events[index]?.actions.compaction;
  if (!compaction) return undefined;
  const start = compaction.startEventId === undefined ? -1 : events.findIndex((e) => e.id === compaction.startEventId);
  const end = compaction.endEventId === undefined ? -1 : events.findIndex((e) => e.id === compaction.endEventId);
  // ADK's compactions name only timestamps (seconds on the wire, like the events').
  const count =
    start >= 0 && end >= start
      ? end - start + 1
      : events
          .slice(0, index)
          .filter((e) => e.timestamp >= compaction.startTimestamp && e.timestamp <= compaction.endTimestamp).length;
  const summary = compaction.summary.parts.map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
  return { count, summary };
}
