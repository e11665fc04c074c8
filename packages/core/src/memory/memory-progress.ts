import type { Session } from '../sessions/session.js';
import { memoryOf, sessionMemories, type SessionMemory } from './session-memories.js';

/**
 * How far a store has indexed a session: the number of its events it has seen, the id of the last
 * of them, and how many memories it keeps of it.
 */
export interface MemoryProgress {
  eventCount: number;
  lastEventId: string | undefined;
  memoryCount: number;
}

/**
 * What adding a session changes: `append` adds the memories of the events since the last add to
 * those kept; `replace` replaces them all. `progress` is what the store records afterwards.
 */
export interface MemoryUpdate {
  kind: 'append' | 'replace';
  memories: SessionMemory[];
  progress: MemoryProgress;
}

/**
 * Plans adding `session` to a store that indexed it up to `progress` (undefined: never, or not
 * recorded). A session is added after every turn, so most adds find the events indexed last time
 * at the start of the session, unchanged, and only the new ones are read: the cost of a turn stays
 * flat however long the session grows. Anything else (another copy of the session, a shorter or
 * branched one, a rewind since, which takes turns back) is indexed whole, exactly as
 * {@link sessionMemories} says; both ways end with the same memories.
 */
export function planMemoryUpdate(session: Session, progress: MemoryProgress | undefined): MemoryUpdate {
  const { events } = session;
  const last = events.at(-1)?.id;
  const from = progress?.eventCount ?? -1;
  const continues =
    progress !== undefined && from <= events.length && (from === 0 || events[from - 1]!.id === progress.lastEventId);
  const after = (memoryCount: number): MemoryProgress => ({
    eventCount: events.length,
    lastEventId: last,
    memoryCount,
  });
  // A session seen for the first time is read from its start the same way; only a rewind needs the whole rule.
  const read = memoriesFrom(events, continues ? from : 0);
  if (read && continues) return { kind: 'append', memories: read, progress: after(progress.memoryCount + read.length) };
  const memories = read ?? sessionMemories(session);
  return { kind: 'replace', memories, progress: after(memories.length) };
}

/** The memories of `events` from index `from` on; undefined when one of them is a rewind (it may take back earlier turns). */
function memoriesFrom(events: Session['events'], from: number): SessionMemory[] | undefined {
  const memories: SessionMemory[] = [];
  for (let i = from; i < events.length; i++) {
    const event = events[i]!;
    if (event.actions.rewindBeforeInvocationId !== undefined) return undefined;
    const memory = memoryOf(event);
    if (memory) memories.push(memory);
  }
  return memories;
}
