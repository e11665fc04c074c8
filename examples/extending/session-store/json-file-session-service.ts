import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  NO_LEASE,
  checkAfterVersion,
  finishAppend,
  planAppend,
  planLeaseRelease,
  planLeaseRenewal,
  planLeaseTake,
  sessionExistsError,
  splitDelta,
  toSessionLease,
  assertValidDelta,
  type LeaseState,
  type ScopedDelta,
} from '@troupe/core/stores';
import type {
  AppendEventParams,
  CreateSessionParams,
  Event,
  GetSessionParams,
  Session,
  SessionKey,
} from '@troupe/core';
import type { LeaseParams, LeasingSessionService, SessionLease } from '@troupe/core/stores';

/**
 * One session as the file keeps it: its own state (no `user:`/`app:` keys), its events, and its
 * lease (`leaseOwner`, `leaseEpoch`, `leaseExpiresAt`). With `version` and `lastUpdateTime` it is
 * also the head `planAppend` reads.
 */
interface StoredSession extends LeaseState {
  id: string;
  state: Record<string, unknown>;
  events: Event[];
  version: number;
  lastUpdateTime: number;
}

/** The whole file. Keys carry a prefix and NUL separators, so no key is ever `__proto__`. */
interface StoreFile {
  sessions: Record<string, StoredSession>;
  /** `app <name>` and `user <app>\0<user>` → that scope's state. */
  scopes: Record<string, Record<string, unknown>>;
}

/**
 * Sessions kept in one JSON file, read and rewritten on every call. Every call runs synchronously
 * from read to write, so the instances of one process sharing a file never interleave; it is a
 * teaching example, not for several processes or large sessions.
 */
export class JsonFileSessionService implements LeasingSessionService {
  /** @param path The file; created on the first write. */
  constructor(readonly path: string) {}

  async createSession(params: CreateSessionParams): Promise<Session> {
    const initial = params.state ?? {};
    assertValidDelta(initial);
    const sessionId = params.sessionId ?? randomUUID();
    return this.update((file) => {
      const key = sessionKey(params.appName, params.userId, sessionId);
      if (file.sessions[key]) throw sessionExistsError(params.appName, params.userId, sessionId);
      const scoped = splitDelta(initial);
      const stored: StoredSession = {
        id: sessionId,
        state: {},
        events: [],
        version: 0,
        lastUpdateTime: Date.now(),
        ...NO_LEASE,
      };
      applyScoped(file, params.appName, params.userId, stored, scoped);
      file.sessions[key] = stored;
      return toSession(file, params.appName, params.userId, stored, []);
    });
  }

  async getSession(params: GetSessionParams): Promise<Session | undefined> {
    const after = checkAfterVersion(params);
    const file = this.read();
    const stored = file.sessions[sessionKey(params.appName, params.userId, params.sessionId)];
    if (!stored) return undefined;
    // The event stored at version v is events[v - 1]: every append adds one of each.
    let events = after === undefined ? stored.events : stored.events.slice(after);
    const since = params.afterTimestamp;
    if (since !== undefined) events = events.filter((e) => e.timestamp >= since);
    const recent = params.numRecentEvents;
    if (recent !== undefined) events = recent <= 0 ? [] : events.slice(-recent);
    const session = toSession(file, params.appName, params.userId, stored, events);
    if (after !== undefined)
      session.increment = {
        afterVersion: after,
        baseEventId: stored.events[Math.min(after, stored.events.length) - 1]?.id,
      };
    return session;
  }

  async listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    const file = this.read();
    const prefix = sessionKey(params.appName, params.userId, '');
    const sessions = Object.entries(file.sessions)
      .filter(([key]) => key.startsWith(prefix))
      .map(([, stored]) => toSession(file, params.appName, params.userId, stored, []));
    return { sessions };
  }

  async deleteSession(params: SessionKey): Promise<void> {
    this.update((file) => {
      delete file.sessions[sessionKey(params.appName, params.userId, params.sessionId)];
    });
  }

  async appendEvent(params: AppendEventParams): Promise<Event> {
    const { session, event } = params;
    if (event.partial) return event;
    const plan = this.update((file) => {
      const stored = file.sessions[sessionKey(session.appName, session.userId, session.id)];
      // Troupe's append rules (missing session, lost lease, retried event, stale copy, state keys).
      const plan = planAppend(params, stored, (id) => stored?.events.find((e) => e.id === id));
      if (plan.kind === 'write' && stored) {
        applyScoped(file, session.appName, session.userId, stored, plan.scoped);
        stored.events.push(plan.persisted);
        stored.version = plan.version;
        stored.lastUpdateTime = plan.lastUpdateTime;
      }
      return plan;
    });
    // After the write: the caller's session gets the delta (temp: keys too), the event and the version.
    return finishAppend(params, plan);
  }

  // Troupe's lease rules (argument checks, missing session, free/expired/ours → epoch + 1, renewal
  // at the lease's epoch, LeaseLostError). Each plan runs between this call's read and its write, so
  // it is atomic among the instances of one process; a store shared by processes puts the same
  // condition (`canTakeLease`) into one conditional write of its database instead.
  async leaseSession(params: LeaseParams): Promise<SessionLease | undefined> {
    return this.update((file) => {
      const stored = file.sessions[sessionKey(params.appName, params.userId, params.sessionId)];
      const taken = planLeaseTake(stored, params, Date.now());
      if (!taken || !stored) return undefined;
      Object.assign(stored, taken);
      return toSessionLease(params, taken);
    });
  }

  async renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease> {
    return this.update((file) => {
      const stored = file.sessions[sessionKey(lease.appName, lease.userId, lease.sessionId)];
      const renewed = planLeaseRenewal(stored, lease, ttlMs, Date.now());
      if (stored) Object.assign(stored, renewed);
      return toSessionLease(lease, renewed);
    });
  }

  async releaseLease(lease: SessionLease): Promise<void> {
    this.update((file) => {
      const stored = file.sessions[sessionKey(lease.appName, lease.userId, lease.sessionId)];
      const released = planLeaseRelease(stored, lease);
      if (stored && released) Object.assign(stored, released);
    });
  }

  private read(): StoreFile {
    if (!existsSync(this.path)) return { sessions: {}, scopes: {} };
    return JSON.parse(readFileSync(this.path, 'utf8')) as StoreFile;
  }

  /** Reads the file, changes it, and writes it whole (through a temporary file and a rename). */
  private update<T>(change: (file: StoreFile) => T): T {
    const file = this.read();
    const result = change(file);
    writeFileSync(`${this.path}.tmp`, JSON.stringify(file));
    renameSync(`${this.path}.tmp`, this.path);
    return result;
  }
}

function sessionKey(appName: string, userId: string, sessionId: string): string {
  return `session ${appName}\u0000${userId}\u0000${sessionId}`;
}

function applyScoped(
  file: StoreFile,
  appName: string,
  userId: string,
  stored: StoredSession,
  scoped: ScopedDelta,
): void {
  const targets = [
    [scoped.session, stored.state],
    [scoped.app, (file.scopes[`app ${appName}`] ??= {})],
    [scoped.user, (file.scopes[`user ${appName}\u0000${userId}`] ??= {})],
  ] as const;
  for (const [changes, state] of targets) {
    Object.assign(state, changes.set);
    for (const key of changes.removed) delete state[key];
  }
}

function toSession(file: StoreFile, appName: string, userId: string, stored: StoredSession, events: Event[]): Session {
  // Everything here was just parsed from the file, so the caller gets objects no one else holds.
  const state = { ...stored.state, ...file.scopes[`app ${appName}`], ...file.scopes[`user ${appName}\u0000${userId}`] };
  return {
    id: stored.id,
    appName,
    userId,
    state,
    events,
    lastUpdateTime: stored.lastUpdateTime,
    version: stored.version,
  };
}
