import type { Event } from './event.js';

/**
 * The events a rewind took back: for every rewind event (`actions.rewindBeforeInvocationId`), the
 * events from the first event of that invocation up to the rewind event itself. They stay in the
 * session, but are no longer part of its history or state.
 */
export function rewoundEvents(events: readonly Event[]): Set<Event> {
  const rewound = new Set<Event>();
  const firstIndex = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (!firstIndex.has(event.invocationId)) firstIndex.set(event.invocationId, i);
    const target = event.actions.rewindBeforeInvocationId;
    if (target === undefined) continue;
    const from = firstIndex.get(target);
    if (from === undefined || from >= i) continue;
    for (let j = from; j < i; j++) rewound.add(events[j]!);
  }
  return rewound;
}

/**
 * The ids of the events a rewind took back (see {@link rewoundEvents}), for UIs and servers that
 * show them as rewound.
 */
export function rewoundEventIds(events: readonly Event[]): Set<string> {
  const ids = new Set<string>();
  for (const event of rewoundEvents(events)) ids.add(event.id);
  return ids;
}

/** Whether an event is a compaction or rewind record: it changes what earlier events mean to history. */
export function isHistoryRewrite(event: Event): boolean {
  return event.actions.compaction !== undefined || event.actions.rewindBeforeInvocationId !== undefined;
}
