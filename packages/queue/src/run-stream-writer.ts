import type { Event } from '@troupe/core';
import type { RunRecordStatus } from '@troupe/core/stores';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys.js';

/**
 * Appends to a run's stream only while this attempt owns the run: a worker that froze and was taken
 * over finds another token in the owner key and writes nothing. A missing key (Redis lost its data)
 * does not stop the attempt that runs. The stream's expiry is pushed back with every entry, so a run
 * that dies without ending still leaves nothing behind for ever.
 */
const FENCED_XADD = `
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return false end
local id = redis.call('XADD', KEYS[2], '*', ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id`;

interface FencedRedis extends Redis {
  troupeFencedXadd(
    owner: string,
    stream: string,
    token: string,
    ttlMs: number,
    field: string,
    value: string,
  ): Promise<string | null>;
}

/** Teaches a client the fenced append (once per client; ioredis sends the script by its hash). */
export function withFencedXadd(client: Redis): FencedRedis {
  const fenced = client as FencedRedis;
  if (typeof fenced.troupeFencedXadd !== 'function')
    client.defineCommand('troupeFencedXadd', { numberOfKeys: 2, lua: FENCED_XADD });
  return fenced;
}

/** How long streams live. */
export interface StreamTtls {
  /** While the run goes on (pushed back by every entry). */
  runningMs: number;
  /** After the run ended or paused. */
  endedMs: number;
}

/**
 * One attempt's writer of a run's live stream. Appends are sent without waiting (ioredis keeps
 * their order on the connection), so the run never waits for Redis; `flush` waits for them all.
 */
export class RunStreamWriter {
  private pending: Promise<unknown> = Promise.resolve();
  private lostCalled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly runId: string,
    /** Unique to this attempt. */
    private readonly token: string,
    private readonly ttls: StreamTtls,
    /** Called once when the owner key names another attempt: this one was taken over and must stop. */
    private readonly onLost: (reason: string) => void,
    /**
     * Called when Redis failed an append. The run goes on (the session store is its record; a join
     * that misses frames replays the stored events), so a Redis blip does not fail a user's turn.
     */
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Makes this attempt the stream's only writer. */
  async claim(): Promise<void> {
    await this.redis.set(this.keys.owner(this.runId), this.token, 'PX', this.ttls.runningMs);
  }

  publish(event: Event): void {
    this.append('e', JSON.stringify(event));
  }

  /** Marks where the run stopped (ended or paused) and lets the stream expire after `endedMs`. */
  async end(status: RunRecordStatus): Promise<void> {
    this.append('end', status);
    await this.flush();
    if (this.lostCalled) return;
    await this.redis
      .multi()
      .pexpire(this.keys.events(this.runId), this.ttls.endedMs)
      .pexpire(this.keys.owner(this.runId), this.ttls.endedMs)
      .exec();
  }

  /** Waits until every append so far reached Redis (or failed). */
  async flush(): Promise<void> {
    await this.pending;
  }

  /** Ids of the stored (non-partial) events already in the stream: after a takeover, what the crashed attempt published. */
  async publishedEventIds(): Promise<Set<string>> {
    const ids = new Set<string>();
    const entries = await this.redis.xrange(this.keys.events(this.runId), '-', '+');
    for (const [, fields] of entries) {
      if (fields[0] !== 'e') continue;
      const event = JSON.parse(fields[1]!) as Event;
      if (!event.partial) ids.add(event.id);
    }
    return ids;
  }

  private append(field: string, value: string): void {
    const sent = withFencedXadd(this.redis)
      .troupeFencedXadd(
        this.keys.owner(this.runId),
        this.keys.events(this.runId),
        this.token,
        this.ttls.runningMs,
        field,
        value,
      )
      .then(
        (id) => {
          if (id === null) this.lost(`run '${this.runId}' was taken over by another worker`);
        },
        (error: unknown) => this.onError(error),
      );
    this.pending = this.pending.then(() => sent);
  }

  private lost(reason: string): void {
    if (this.lostCalled) return;
    this.lostCalled = true;
    this.onLost(reason);
  }
}
