import type { Redis } from 'ioredis';
import { streamReader } from './redis-connection.js';

/** Idle connections kept for the next follower; more than this many idle at once are closed. */
const MAX_IDLE = 64;

/**
 * The connections that follow runs' streams. A blocking read holds its connection, so each follower
 * needs one of its own; a follower that read to the end hands it back for the next one, so a run
 * followed through the API does not pay a connect and Redis' handshake (issue #34). A connection that
 * may still have a read in flight (the follower stopped early or failed) is closed instead.
 */
export class StreamReaders {
  private readonly idle: Redis[] = [];
  private readonly busy = new Set<Redis>();
  private closed = false;

  constructor(private readonly client: Redis) {}

  take(): Redis {
    const reader = this.idle.pop() ?? streamReader(this.client);
    this.busy.add(reader);
    return reader;
  }

  /** `finished`: the follower read to the end, with no read in flight. */
  give(reader: Redis, finished: boolean): void {
    this.busy.delete(reader);
    if (finished && !this.closed && reader.status === 'ready' && this.idle.length < MAX_IDLE) this.idle.push(reader);
    else reader.disconnect();
  }

  /** Ends every follower in progress and closes the idle connections. */
  close(): void {
    this.closed = true;
    for (const reader of [...this.busy, ...this.idle]) reader.disconnect();
    this.busy.clear();
    this.idle.length = 0;
  }
}
