import type { Content, TextPart } from '../events/content.js';
import type { Event } from '../events/event.js';
import { rewoundEvents } from '../events/rewound-events.js';
import type { Session } from '../sessions/session.js';
import type { MemoryEntry } from './memory-service.js';

/** One remembered turn of a session, as a store keeps it: the entry and its plain text (for the index). */
export interface SessionMemory {
  /** The id of the event it comes from. */
  eventId: string;
  entry: MemoryEntry;
  /** The entry's text parts joined by newlines: what search matches. */
  text: string;
}

/**
 * What a session contributes to memory: each stored turn with text — the user's messages and the
 * agents' answers — with only its non-thought text parts. Streaming chunks, failures (events with an
 * `errorCode`), thoughts, pure tool calls or results, and turns a rewind took back are left out.
 * Every `MemoryService` stores exactly these, so the stores remember the same things.
 */
export function sessionMemories(session: Session): SessionMemory[] {
  const memories: SessionMemory[] = [];
  const rewound = rewoundEvents(session.events);
  for (const event of session.events) {
    if (rewound.has(event)) continue;
    const memory = memoryOf(event);
    if (memory) memories.push(memory);
  }
  return memories;
}

/** The memory of one stored event, or undefined when it adds none (see {@link sessionMemories}). */
export function memoryOf(event: Event): SessionMemory | undefined {
  if (event.partial || event.errorCode !== undefined || !event.content) return undefined;
  const parts: TextPart[] = [];
  for (const part of event.content.parts) {
    if ('text' in part && !part.thought && part.text.trim() !== '') parts.push({ text: part.text });
  }
  if (parts.length === 0) return undefined;
  const content: Content = { role: event.content.role, parts };
  return {
    eventId: event.id,
    entry: { content, author: event.author, timestamp: event.timestamp },
    text: parts.map((part) => part.text).join('\n'),
  };
}
