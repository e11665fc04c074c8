import { ConfigurationError } from '../errors.js';
import type { SessionKey } from './session.js';

/** Why a bounded in-memory store dropped a session. */
export type EvictionReason = 'maxSessions' | 'idleTtl';

/** The bound of an {@link InMemorySessionService} kept in a long-lived process (`troupe api --memory`). */
export interface SessionBound {
  /**
   * Keep at most this many sessions: creating one more drops the least recently used idle
   * session. A session that is running (its lease is held) or paused (waiting for an answer to an
   * interrupt, or with a queued run) is never dropped, so the count may stay above the bound while
   * that many are busy.
   */
  maxSessions?: number;
  /** Drop an idle session nobody read or wrote for this long (checked as sessions are used). */
  idleTtlMs?: number;
  /** Told about each session dropped, e.g. to log it. */
  onEvict?: (key: SessionKey, reason: EvictionReason) => void;
}

/** Checks a bound a user wrote; throws a ConfigurationError naming the option and the fix. */
export function checkSessionBound(bound: SessionBound): void {
  const { maxSessions, idleTtlMs, onEvict } = bound;
  if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions >= 1)) {
    throw new ConfigurationError(
      `InMemorySessionService's maxSessions is ${JSON.stringify(maxSessions)}; use a whole number of at least 1, or leave it out for no bound.`,
    );
  }
  if (idleTtlMs !== undefined && !(typeof idleTtlMs === 'number' && Number.isFinite(idleTtlMs) && idleTtlMs > 0)) {
    throw new ConfigurationError(
      `InMemorySessionService's idleTtlMs is ${JSON.stringify(idleTtlMs)}; use a positive number of milliseconds, or leave it out to keep idle sessions.`,
    );
  }
  if (onEvict !== undefined && typeof onEvict !== 'function') {
    throw new ConfigurationError(`InMemorySessionService's onEvict must be a function; got ${typeof onEvict}.`);
  }
}

/**
 * The sessions of a bounded store in order of last use, oldest first (a Set keeps insertion
 * order; using a session moves it to the end). Only a bounded store keeps one, so an unbounded
 * store's hot path does no bookkeeping.
 */
export class RecencyList<T> {
  private readonly order = new Set<T>();

  get size(): number {
    return this.order.size;
  }

  touch(item: T): void {
    this.order.delete(item);
    this.order.add(item);
  }

  delete(item: T): void {
    this.order.delete(item);
  }

  /** Oldest first. Items may be touched or deleted while iterating (a Set allows it). */
  oldest(): IterableIterator<T> {
    return this.order.values();
  }
}
