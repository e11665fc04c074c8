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
  /**
   * Only on the answer to `getSession({ afterVersion })` from a store that reads incrementally:
   * `events` then holds just the events stored after that version (state, version and
   * `lastUpdateTime` are current). Absent on every other answer.
   */
  increment?: SessionIncrement;
}

/**
 * What an incremental read (`getSession({ afterVersion })`) says about itself, so the caller can
 * tell whether its copy is a prefix of the stored session before adding the new events to it.
 * The copy is a prefix when `afterVersion` is the copy's version, `baseEventId` is the id of the
 * copy's last event, and the answer brings one event per version since (`version - afterVersion`
 * events). Otherwise (the session was deleted and created again under the same id, or the caller
 * never saw that version) the caller reads the session whole.
 */
export interface SessionIncrement {
  /** The `afterVersion` asked for. */
  afterVersion: number;
  /** The id of the last event stored at or before `afterVersion`; undefined when there is none. */
  baseEventId: string | undefined;
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
  /**
   * Only the events stored after this version: what a caller holding the session at that version
   * lacks, so reading a long session costs what changed, not its length. The answer carries
   * `increment` (see {@link SessionIncrement}); state, version and `lastUpdateTime` are current.
   * Combines with the other filters (an event must pass all of them). Stores that do not read
   * incrementally ignore it and answer without `increment`.
   */
  afterVersion?: number;
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
 * (`sessionServiceContract` from `@troupe/core/testing/contracts`).
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
