import type { Event } from '@troupe/core';
import type { Redis } from 'ioredis';
import type { StreamEntry } from '@troupe/core/hosting';

/** A stream entry id as Redis writes them (`<ms>-<seq>`). */
export const STREAM_ID = /^\d+-\d+$/;

/** How long one blocking read waits before the reader checks whether the run is still going. */
const BLOCK_MS = 2_000;

export interface FollowOptions {
  /** Read after this entry id; `'0-0'` reads from the start. */
  after: string;
  signal?: AbortSignal | undefined;
  /**
   * True while the run may still write (pending, running, or paused with a resume queued). Asked
   * when a read times out and at an end marker with nothing after it.
   */
  stillGoing: () => Promise<boolean>;
}

/**
 * Follows one run's stream on a connection of its own (blocking reads hold a connection) until the
 * run stops: at an `end` entry with nothing after it, unless a resume put the run back on the queue.
 * Yields each event entry once, in order.
 */
export async function* followStream(reader: Redis, key: string, options: FollowOptions): AsyncGenerator<StreamEntry> {
  let cursor = options.after;
  const onAbort = () => reader.disconnect();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!options.signal?.aborted) {
      const reply = await reader
        .xread('COUNT', 500, 'BLOCK', BLOCK_MS, 'STREAMS', key, cursor)
        .catch((error: unknown) => {
          if (options.signal?.aborted) return null;
          throw error;
        });
      if (options.signal?.aborted) return;
      if (!reply) {
        // Nothing new for a while: a run that is over and wrote no end (its stream expired, or it
        // ended while Redis was away) leaves nothing more to wait for.
        if (!(await options.stillGoing())) return;
        continue;
      }
      for (const [id, fields] of reply[0]![1]) {
        cursor = id;
        if (fields[0] === 'e') {
          yield { id, event: JSON.parse(fields[1]!) as Event };
          continue;
        }
        // An end marker: the run stopped here, unless more follows (a resume, or a takeover that
        // went on) or is about to (a resume queued but not yet started).
        const next = await reader.xrange(key, `(${id}`, '+', 'COUNT', 1);
        if (next.length === 0 && !(await options.stillGoing())) return;
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
