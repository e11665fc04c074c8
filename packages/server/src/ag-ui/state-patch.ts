import type { JsonPatchOperation } from '@ag-ui/core';
import { TEMP_PREFIX } from '@troupe/core';
import { jsonValue } from './state-input.js';

/**
 * The client's copy of the thread's state, kept in step with the run: each event's `stateDelta`
 * becomes the JSON Patch that turns the client's state into the session's (AG-UI's STATE_DELTA).
 * Keys are top-level, so every operation adds, replaces or removes one key; `temp:` keys, which
 * live for the invocation only, never reach the client.
 */
export class StatePatcher {
  private readonly state: Record<string, unknown>;

  constructor(initial: Readonly<Record<string, unknown>>) {
    this.state = { ...initial };
  }

  /** The patch for one event's delta (empty when it changes nothing the client sees). */
  patch(delta: Readonly<Record<string, unknown>>): JsonPatchOperation[] {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(delta)) {
      if (key.startsWith(TEMP_PREFIX)) continue;
      const path = pointerOf(key);
      const exists = Object.hasOwn(this.state, key);
      // A key set to undefined is removed, as the session stores do.
      if (delta[key] === undefined) {
        if (exists) ops.push({ op: 'remove', path });
        delete this.state[key];
        continue;
      }
      const value = jsonValue(delta[key]);
      if (exists && JSON.stringify(this.state[key]) === JSON.stringify(value)) continue;
      ops.push(exists ? { op: 'replace', path, value } : { op: 'add', path, value });
      this.state[key] = value;
    }
    return ops;
  }
}

/** A state key as a JSON Pointer (RFC 6901: `~` is `~0`, `/` is `~1`). */
export function pointerOf(key: string): string {
  return `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}
