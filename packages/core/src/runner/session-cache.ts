import type { Session, SessionKey, SessionService } from '../sessions/session.js';

/**
 * Sessions with fewer events are read whole at every turn: that costs little, and the many short
 * sessions of a busy server then hold no memory here.
 */
export const KEEP_FROM = 32;

/** A session as the last turn left it, and what it held when that turn read it. */
interface Entry {
  session: Session;
  /** `session.version` and `session.events.length` when it was handed to the turn. */
  readVersion: number;
  readLength: number;
}

/**
 * The sessions a Runner ran lately, kept between turns so that a turn reads only what changed
 * since the last one (`getSession({ afterVersion })`) instead of the whole session, and adds the
 * new events to the same events array (so history, folded incrementally per array, folds only
 * them). The store stays the source of truth: state, version and `lastUpdateTime` come from it at
 * every read, and so do events appended elsewhere (another process, another Runner, a PATCH). A
 * kept copy is used only while it is provably a prefix of the stored session (see
 * `SessionIncrement`); anything else (a store that does not read incrementally, a session deleted
 * and created again, a copy whose events do not match its version) falls back to a whole read.
 * Least recently used sessions are forgotten beyond `capacity`; sessions shorter than
 * {@link KEEP_FROM} events are not kept. Internal to the Runner.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** False once the store answered an incremental read without `increment`: it reads whole. */
  private incremental = true;

  /** @param capacity how many sessions to keep; 0 keeps none (every read is whole). */
  constructor(private readonly capacity: number) {}

  /**
   * The session as stored now, for a turn that holds the session's claim (so nothing else of this
   * process changes it until the turn ends). Undefined when the store has no such session.
   */
  async read(service: SessionService, key: SessionKey, prefetched?: Session): Promise<Session | undefined> {
    const id = entryKey(key);
    const entry = this.entries.get(id);
    this.entries.delete(id);
    if (entry && isConsistent(entry)) {
      const held = entry.session;
      const answer =
        prefetched?.increment?.afterVersion === held.version
          ? prefetched
          : await service.getSession({ ...key, afterVersion: held.version });
      if (!answer) return undefined;
      // A store that ignores afterVersion, or a wrapper that dropped `increment` from the answer
      // (its events may be only the new ones): from now on every read is whole, nothing is kept.
      if (!answer.increment) {
        this.incremental = false;
        this.entries.clear();
      } else if (continues(held, answer)) {
        const events = held.events;
        for (const event of answer.events) events.push(event);
        return this.keep(id, {
          id: answer.id,
          appName: answer.appName,
          userId: answer.userId,
          state: answer.state,
          events,
          lastUpdateTime: answer.lastUpdateTime,
          version: answer.version,
        });
      }
    }
    // A whole read the store made along with the lease serves as well (not an incremental one).
    const session = prefetched && !prefetched.increment ? prefetched : await service.getSession(key);
    return session ? this.keep(id, session) : undefined;
  }

  /**
   * What to ask the store to read along with the session's lease: after the kept copy's version
   * when a consistent copy is kept (as {@link read} will ask), else the whole session.
   */
  readPlan(key: SessionKey): { afterVersion?: number } {
    const entry = this.entries.get(entryKey(key));
    return entry && isConsistent(entry) ? { afterVersion: entry.session.version } : {};
  }

  private keep(id: string, session: Session): Session {
    if (this.capacity === 0 || !this.incremental || session.events.length < KEEP_FROM) return session;
    this.entries.set(id, { session, readVersion: session.version, readLength: session.events.length });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return session;
  }
}

function entryKey(key: SessionKey): string {
  return `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;
}

/**
 * Whether the turn that used this copy left it as the store's appends do: one event per version
 * (an agent that pushed onto `session.events` itself, or a store that bumps versions without
 * events, breaks that, and the copy is read whole again).
 */
function isConsistent(entry: Entry): boolean {
  const { session } = entry;
  return session.version - entry.readVersion === session.events.length - entry.readLength;
}

/**
 * Whether `answer` (read after `held.version`) continues exactly the events `held` has: it follows
 * that version, its last event before them is `held`'s last one, and it brings one event per
 * version since (which also refuses a store that went back to a lower version).
 */
function continues(held: Session, answer: Session): boolean {
  const increment = answer.increment!;
  return (
    increment.afterVersion === held.version &&
    increment.baseEventId === held.events[held.events.length - 1]?.id &&
    answer.events.length === answer.version - held.version
  );
}
