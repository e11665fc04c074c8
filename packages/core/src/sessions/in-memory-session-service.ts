import type { Event } from '../events/event.js';
import { cloneData } from '../utils/clone.js';
import { checkAppendHead, finishAppend, planAfterLookup } from '../stores/append-plan.js';
import { checkAfterVersion } from '../stores/after-version.js';
import { sessionExistsError } from '../stores/store-errors.js';
import {
  NO_LEASE,
  planLeaseRelease,
  planLeaseRenewal,
  planLeaseTake,
  toSessionLease,
  type LeaseState,
} from '../stores/lease-rules.js';
import { copyEvent } from './event-copy.js';
import { SYNC_APPEND, type SyncAppend } from './sync-append.js';
import { newId } from '../utils/ids.js';
import type { AppendEventParams, CreateSessionParams, GetSessionParams, Session, SessionKey } from './session.js';
import type { LeaseParams, LeasingSessionService, SessionLease } from './session-lease.js';
import { InMemoryRuns } from './in-memory-runs.js';
import { openInterrupts } from '../interrupts/open-interrupts.js';
import { checkSessionBound, RecencyList, type EvictionReason, type SessionBound } from './session-eviction.js';
import type { CreateRunParams, RunCondition, RunFilter, RunRecord, RunRecordStore, RunUpdate } from './run-records.js';
import { APP_PREFIX, TEMP_PREFIX, USER_PREFIX, assertValidDelta } from './state-keys.js';

/** A stored session carries its lease's owner, epoch and expiry (`LeaseState`): no object per lease. */
interface StoredSession extends LeaseState {
  id: string;
  appName: string;
  userId: string;
  /** Session-scoped keys only; `app:`/`user:` keys live in their own maps. */
  state: Record<string, unknown>;
  events: Event[];
  /** Ids of the stored events, indexed once the session is long enough to need it. */
  eventIds: Set<string> | undefined;
  lastUpdateTime: number;
  /** When it was last read or written (a bounded store drops the least recently used first). */
  lastUseTime: number;
  version: number;
}

/** Options of {@link InMemorySessionService}: none by default (no bound). */
export type InMemorySessionServiceOptions = SessionBound;

/** Statuses of a run that still needs its session: queued, running, or paused for an answer. */
const ACTIVE_RUNS = ['pending', 'running', 'interrupted'] as const;

/** How many uses between two checks for idle sessions (besides every create). */
const SWEEP_EVERY = 256;

/**
 * Sessions kept in process memory: the default for tests and quick starts. It behaves like a
 * persistent store: it keeps its own copy of what is appended and hands out copies, so changing a
 * returned session or an appended event never changes what is stored. It keeps run records
 * (`RunRecordStore`) for the background-run queue, within this process.
 *
 * In a long-lived process, bound it (`{ maxSessions, idleTtlMs }`): the least recently used idle
 * sessions are dropped, never one that is running or paused (see {@link SessionBound}).
 */
export class InMemorySessionService implements LeasingSessionService, RunRecordStore {
  // app → user → session id: no long composite key string kept per session.
  private readonly sessions = new Map<string, Map<string, Map<string, StoredSession>>>();
  private readonly appState = new Map<string, Record<string, unknown>>();
  private readonly userState = new Map<string, Record<string, unknown>>();
  private readonly runs = new InMemoryRuns();
  private readonly bound: SessionBound | undefined;
  /** Sessions by last use; kept only when bounded. */
  private readonly recency: RecencyList<StoredSession> | undefined;
  private usesSinceSweep = 0;

  constructor(options: InMemorySessionServiceOptions = {}) {
    checkSessionBound(options);
    if (options.maxSessions !== undefined || options.idleTtlMs !== undefined) {
      this.bound = { ...options };
      this.recency = new RecencyList();
    }
  }

  /** How many sessions are stored. */
  get sessionCount(): number {
    let count = 0;
    for (const users of this.sessions.values()) for (const byId of users.values()) count += byId.size;
    return count;
  }

  async createSession(params: CreateSessionParams): Promise<Session> {
    const sessionId = params.sessionId ?? newId();
    if (this.find(params.appName, params.userId, sessionId)) {
      throw sessionExistsError(params.appName, params.userId, sessionId);
    }
    // Make room before the new one counts.
    if (this.recency) this.sweep(1);
    const now = Date.now();
    const stored: StoredSession = {
      id: sessionId,
      appName: params.appName,
      userId: params.userId,
      state: {},
      events: [],
      eventIds: undefined,
      lastUpdateTime: now,
      lastUseTime: now,
      version: 0,
      ...NO_LEASE,
    };
    if (params.state) {
      assertValidDelta(params.state);
      this.applyDelta(stored, cloneData(params.state));
    }
    this.userSessions(params.appName, params.userId).set(sessionId, stored);
    this.recency?.touch(stored);
    return this.toSession(stored, copyEvents(stored.events));
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    const after = checkAfterVersion(params);
    const stored = this.find(params.appName, params.userId, params.sessionId);
    if (!stored) return undefined;
    if (this.recency) this.used(stored);
    let events = stored.events;
    // Every append adds one event and one version, so the event of version v is events[v - 1].
    if (after !== undefined) events = events.slice(after);
    if (params.afterTimestamp !== undefined) {
      const since = params.afterTimestamp;
      events = events.filter((e) => e.timestamp >= since);
    }
    if (params.numRecentEvents !== undefined) {
      events = params.numRecentEvents <= 0 ? [] : events.slice(-params.numRecentEvents);
    }
    const session = this.toSession(stored, copyEvents(events));
    if (after !== undefined)
      session.increment = {
        afterVersion: after,
        baseEventId: stored.events[Math.min(after, stored.events.length) - 1]?.id,
      };
    return session;
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    const sessions: Session[] = [];
    for (const stored of this.sessions.get(params.appName)?.get(params.userId)?.values() ?? []) {
      sessions.push(this.toSession(stored, []));
    }
    return { sessions };
  }

  async deleteSession(params: SessionKey): Promise<void> {
    this.remove(params);
  }

  private remove(params: SessionKey): void {
    this.runs.deleteSession(params);
    const users = this.sessions.get(params.appName);
    const byId = users?.get(params.userId);
    const stored = byId?.get(params.sessionId);
    if (!users || !byId || !stored) return;
    byId.delete(params.sessionId);
    this.recency?.delete(stored);
    if (byId.size === 0) users.delete(params.userId);
    if (users.size === 0) this.sessions.delete(params.appName);
  }

  async appendEvent(params: AppendEventParams): Promise<Event> {
    return this.appendNow(params);
  }

  /**
   * The runner's synchronous append: nothing here waits. Not offered when a subclass overrides
   * `appendEvent`, so its override still sees every event.
   * @internal
   */
  [SYNC_APPEND](): SyncAppend | undefined {
    return this.appendEvent === InMemorySessionService.prototype.appendEvent ? (p) => this.appendNow(p) : undefined;
  }

  private appendNow(params: AppendEventParams): Event {
    const { session, event } = params;
    if (event.partial) return event;
    // A stored session is its own head (version, leaseEpoch, lastUpdateTime).
    const stored = checkAppendHead(params, this.find(session.appName, session.userId, session.id));
    const plan = planAfterLookup(params, stored, hasEvent(stored, event.id) ? storedCopy(stored, event) : undefined);
    if (plan.kind === 'write') {
      if (this.recency) this.used(stored);
      const copy = copyEvent(plan.persisted, true);
      this.applyDelta(stored, copy.actions.stateDelta);
      stored.events.push(copy);
      indexEvent(stored, copy.id);
      stored.version = plan.version;
      stored.lastUpdateTime = plan.lastUpdateTime;
    }
    return finishAppend(params, plan);
  }

  // Leases follow the shared rules (lease-rules.ts); each call reads and writes with no await in
  // between, so nothing else in this process runs in the middle.
  async leaseSession(params: LeaseParams): Promise<SessionLease | undefined> {
    const stored = this.find(params.appName, params.userId, params.sessionId);
    const taken = planLeaseTake(stored, params, Date.now());
    // `stored` is set whenever there is a lease: planLeaseTake throws for a missing session.
    if (!taken || !stored) return undefined;
    if (this.recency) this.used(stored);
    setLease(stored, taken);
    return toSessionLease(params, taken);
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    const stored = this.find(lease.appName, lease.userId, lease.sessionId);
    const renewed = planLeaseRenewal(stored, lease, ttlMs, Date.now());
    if (stored) setLease(stored, renewed);
    return toSessionLease(lease, renewed);
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    const stored = this.find(lease.appName, lease.userId, lease.sessionId);
    const released = planLeaseRelease(stored, lease);
    if (stored && released) setLease(stored, released);
  }

  async createRun(params: CreateRunParams): Promise<RunRecord> {
    return this.runs.create(params, this.find(params.appName, params.userId, params.sessionId) !== undefined);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  async listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return this.runs.list(filter);
  }

  async updateRun(runId: string, update: RunUpdate, condition?: RunCondition): Promise<RunRecord | undefined> {
    return this.runs.update(runId, update, condition);
  }

  /** Always healthy: the sessions are in this process's memory. */
  async checkHealth(): Promise<void> {}

  /** Marks a session used now; every so often, drops the idle sessions past their time. */
  private used(stored: StoredSession): void {
    stored.lastUseTime = Date.now();
    this.recency!.touch(stored);
    if (++this.usesSinceSweep >= SWEEP_EVERY) this.sweep(0);
  }

  /**
   * Drops idle sessions, least recently used first: those idle past `idleTtlMs`, then as many as
   * needed for `room` more to fit in `maxSessions`. A busy session met on the way counts as used
   * now (it moves to the end), so the next sweep does not look at it again first.
   */
  private sweep(room: number): void {
    this.usesSinceSweep = 0;
    const { maxSessions, idleTtlMs, onEvict } = this.bound!;
    const recency = this.recency!;
    const now = Date.now();
    let seen = 0;
    const total = recency.size;
    for (const stored of recency.oldest()) {
      if (seen++ >= total) break;
      const over = maxSessions !== undefined && recency.size + room > maxSessions;
      const expired = idleTtlMs !== undefined && now - stored.lastUseTime > idleTtlMs;
      if (!over && !expired) break;
      if (this.isBusy(stored, now)) {
        recency.touch(stored);
        continue;
      }
      const key = { appName: stored.appName, userId: stored.userId, sessionId: stored.id };
      this.remove(key);
      onEvict?.(key, over ? 'maxSessions' : ('idleTtl' satisfies EvictionReason));
    }
  }

  /** Running (its lease is held), paused (open interrupts) or with a queued, running or paused run. */
  private isBusy(stored: StoredSession, now: number): boolean {
    if (stored.leaseExpiresAt > now) return true;
    if (openInterrupts(stored.events).length > 0) return true;
    const session = { appName: stored.appName, userId: stored.userId, sessionId: stored.id };
    return this.runs.list({ session, statuses: ACTIVE_RUNS, limit: 1 }).length > 0;
  }

  private find(appName: string, userId: string, sessionId: string): StoredSession | undefined {
    return this.sessions.get(appName)?.get(userId)?.get(sessionId);
  }

  private userSessions(appName: string, userId: string): Map<string, StoredSession> {
    let users = this.sessions.get(appName);
    if (!users) {
      users = new Map();
      this.sessions.set(appName, users);
    }
    let byId = users.get(userId);
    if (!byId) {
      byId = new Map();
      users.set(userId, byId);
    }
    return byId;
  }

  private applyDelta(stored: StoredSession, delta: Record<string, unknown>): void {
    for (const key in delta) {
      const value = delta[key];
      if (key.startsWith(APP_PREFIX)) {
        setScoped(this.appState, stored.appName, key, value);
      } else if (key.startsWith(USER_PREFIX)) {
        setScoped(this.userState, `${stored.appName}\u0000${stored.userId}`, key, value);
      } else if (!key.startsWith(TEMP_PREFIX)) {
        if (value === undefined) delete stored.state[key];
        else stored.state[key] = value;
      }
    }
  }

  private toSession(stored: StoredSession, events: Event[]): Session {
    return {
      id: stored.id,
      appName: stored.appName,
      userId: stored.userId,
      state: cloneData({
        ...stored.state,
        ...this.appState.get(stored.appName),
        ...this.userState.get(`${stored.appName}\u0000${stored.userId}`),
      }),
      events,
      lastUpdateTime: stored.lastUpdateTime,
      version: stored.version,
    };
  }
}

function setLease(stored: StoredSession, lease: LeaseState): void {
  stored.leaseOwner = lease.leaseOwner;
  stored.leaseEpoch = lease.leaseEpoch;
  stored.leaseExpiresAt = lease.leaseExpiresAt;
}

// Short sessions check ids by scanning (a handful of events); long ones get an index.
const INDEX_FROM = 16;

/**
 * Copies of `events`, in a list made by one array literal: its allocation site learns that the
 * list holds objects, so even an empty one (a new session's) starts with that kind, and the
 * runner's first append to it does not change the array's kind (which deoptimized the append).
 */
function copyEvents(events: readonly Event[]): Event[] {
  const copies: Event[] = [];
  for (let i = 0; i < events.length; i++) copies.push(copyEvent(events[i]!));
  return copies;
}

/** The stored event with `event`'s id, as a copy (the event itself when only the index knows it). */
function storedCopy(stored: StoredSession, event: Event): Event {
  const existing = stored.events.find((e) => e.id === event.id);
  return existing ? copyEvent(existing) : event;
}

function hasEvent(stored: StoredSession, id: string): boolean {
  if (stored.eventIds) return stored.eventIds.has(id);
  // An indexed loop: for-of makes an iterator result per event until the code is optimized.
  const events = stored.events;
  for (let i = 0; i < events.length; i++) if (events[i]!.id === id) return true;
  return false;
}

function indexEvent(stored: StoredSession, id: string): void {
  if (stored.eventIds) stored.eventIds.add(id);
  else if (stored.events.length >= INDEX_FROM) stored.eventIds = new Set(stored.events.map((e) => e.id));
}

function setScoped(map: Map<string, Record<string, unknown>>, scope: string, key: string, value: unknown): void {
  let state = map.get(scope);
  if (!state) {
    state = {};
    map.set(scope, state);
  }
  if (value === undefined) delete state[key];
  else state[key] = value;
}
