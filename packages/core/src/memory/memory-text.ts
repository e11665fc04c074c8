import type { MemoryEntry } from './memory-service.js';

/** The text of a memory: its text parts joined by a space. */
export function memoryText(entry: MemoryEntry): string {
  const texts: string[] = [];
  for (const part of entry.content.parts) if ('text' in part && !part.thought) texts.push(part.text);
  return texts.join(' ');
}

/** A memory's time as an ISO 8601 string, which a model reads better than milliseconds. */
export function memoryTime(entry: MemoryEntry): string | undefined {
  return entry.timestamp === undefined ? undefined : new Date(entry.timestamp).toISOString();
}
