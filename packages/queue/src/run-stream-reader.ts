import type { Event } from '@troupe/core';
import type { Redis } from 'ioredis';
import type { StreamEntry } from '@troupe/core/hosting';
import { FINAL_RUN_STATUSES, type RunRecordStatus } from '@troupe/core/stores';

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
   * when a read times out, and at the end marker of a pause with nothing after it.
   */
  stillGoing: () => Promise<boolean>;
  /** Told the run's final status when an end marker says it, before the follower returns. */
  onEnd?: ((status: RunRecordStatus) => void) | undefined;
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
        if (!(await options.stillGoing()) && !(await wroteAfter(reader, key, cursor))) return;
        continue;
      }
      for (const [id, fields] of reply[0]![1]) {
        cursor = id;
        if (fields[0] === 'e') {
          yield { id, event: JSON.parse(fields[1]!) as Event };
          continue;
        }
        // An end marker: the run stopped here. One that says the run is over is the last entry (only
        // the attempt that recorded the ending writes it); after a pause, more may follow (a resume,
        // or a takeover that went on) or be about to (a resume queued but not yet started).
        if (FINAL_RUN_STATUSES.includes(fields[1] as RunRecordStatus)) {
          options.onEnd?.(fields[1] as RunRecordStatus);
          return;
        }
        if (
          !(await wroteAfter(reader, key, id)) &&
          !(await options.stillGoing()) &&
          !(await wroteAfter(reader, key, id))
        )
          return;
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Whether the stream has an entry after `id`. Asked again once the run's record says it stopped: a
 * run that went on (a resume, a takeover) and ended between the first look and that answer wrote
 * its entries before it stored its ending, so the second look finds them.
 */
async function wroteAfter(reader: Redis, key: string, id: string): Promise<boolean> {
  return (await reader.xrange(key, `(${id}`, '+', 'COUNT', 1)).length > 0;
}
