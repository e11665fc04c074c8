import { randomUUID } from 'node:crypto';

const PREFIX = 'troupe_call_';

/**
 * An id for a function call the provider sent without one (Gemini usually does). The format is
 * accepted by every provider (letters, digits and `_`, under 40 characters).
 */
export function newCallId(): string {
  return PREFIX + randomUUID().replaceAll('-', '').slice(0, 20);
}

/** Whether an id was made by {@link newCallId}, so it can be left out when the provider made none. */
export function isGeneratedCallId(id: string): boolean {
  return id.startsWith(PREFIX);
}
