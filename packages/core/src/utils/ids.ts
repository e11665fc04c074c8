import { randomUUID } from 'node:crypto';

/** A new unique id. */
export function newId(): string {
  return randomUUID();
}
