import type { Event } from '../events/event.js';
import type { SessionLease } from './session-lease.js';

/** A conversation: its state and the events that made it. */
export interface Session {
  id: string;
  appName: string;
  userId: string;
  /** Current state: this session's keys plus `user:` and `app:` keys (and `temp:` during a run). */
  state: Record<string, unknown>;
  events: Event[];
  /** Milliseconds since the epoch. */
  lastUpdateTime: number;
  /** Incremented by every append; an append with an older version throws `StaleSessionError`. */
  version: number;
}

export interface CreateSessionParams {
  appName: string;
  userId: string;
  sessionId?: string;
  state?: Record<string, unknown>;
}

export interface GetSessionParams {
  appName: string;
  userId: string;
  sessionId: string;
  /** Only the most recent N events. */
  numRecentEvents?: number;
  /** Only events with a timestamp at or after this (ms). */
  afterTimestamp?: number;
}

export interface AppendEventParams {
  session: Session;
  event: Event;
  /** The writer's lease, when it holds one (see `LeasingSessionService`). */
  lease?: SessionLease | undefined;
}

export interface SessionKey {
  appName: string;
  userId: string;
  sessionId: string;
}

/**
 * Where sessions live. Every implementation passes the shared contract suite
 * (`test/contracts/session-service.contract.ts`).
 */
export interface SessionService {
  createSession(params: CreateSessionParams): Promise<Session>;
  getSession(params: GetSessionParams): Promise<Session | undefined>;
  /** Sessions of a user in an app, without their events. */
  listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }>;
  deleteSession(params: SessionKey): Promise<void>;
  /**
   * Appends an event and applies its state delta atomically, then updates `session` in place
   * (events, state, version). Appending an event whose id is already stored returns the stored
   * event and changes nothing. Partial events are returned without being stored.
   * With a `lease` (stores that implement leases): refused with `LeaseLostError`, storing nothing,
   * when the session's lease has since passed to another owner.
   */
  appendEvent(params: AppendEventParams): Promise<Event>;
  /**
   * Optional: resolves when the store can serve requests, rejects (with a `StorageError` naming the
   * problem) when it cannot. Servers report it on `/health`.
   */
  checkHealth?(): Promise<void>;
}
