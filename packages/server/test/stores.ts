import {
  type AppendEventParams,
  type CreateSessionParams,
  type Event,
  type GetSessionParams,
  InMemorySessionService,
  type Session,
  type SessionKey,
  type SessionService,
  StorageError,
} from '@troupe/core';
import { type LeaseParams, type LeasingSessionService, type SessionLease } from '@troupe/core/stores';

/**
 * A store in front of an in-memory one whose backend can go away, as a database does when its
 * connection drops: while `down`, every call rejects with the StorageError a real store throws,
 * and nothing is stored. `health` picks how `checkHealth` behaves: answer, fail while down, or
 * hang (a store that accepts the connection but never answers).
 */
export class OutageStore implements SessionService {
  down = false;
  health: 'answers' | 'hangs' | 'throws' = 'answers';
  readonly inner = new InMemorySessionService();
  static readonly PROBLEM =
    'The connection to the session database was lost (ECONNRESET at db.internal:5432). Check that the database is up.';

  createSession(params: CreateSessionParams): Promise<Session> {
    return this.ifUp(() => this.inner.createSession(params));
  }
  getSession(params: GetSessionParams): Promise<Session | undefined> {
    return this.ifUp(() => this.inner.getSession(params));
  }
  listSessions(params: { appName: string; userId: string }): Promise<{ sessions: Session[] }> {
    return this.ifUp(() => this.inner.listSessions(params));
  }
  deleteSession(params: SessionKey): Promise<void> {
    return this.ifUp(() => this.inner.deleteSession(params));
  }
  appendEvent(params: AppendEventParams): Promise<Event> {
    return this.ifUp(() => this.inner.appendEvent(params));
  }
  checkHealth(): Promise<void> {
    if (this.health === 'hangs') return new Promise(() => undefined);
    // A check written without async: its throw must still become a 503, not a 500.
    if (this.health === 'throws')
      throw new StorageError('The health query could not be prepared: the database file is read-only.');
    return this.ifUp(async () => undefined);
  }

  private async ifUp<T>(call: () => Promise<T>): Promise<T> {
    if (this.down) throw new StorageError(OutageStore.PROBLEM);
    return call();
  }
}

/**
 * An in-memory store whose leases last `ttlMs` whatever the runner asks for: a process that is
 * frozen (a long GC pause, a suspended VM) for longer than that loses its session to another
 * process, which is how a lease is lost in production.
 */
export class ShortLeaseStore extends InMemorySessionService implements LeasingSessionService {
  constructor(private readonly ttlMs: number) {
    super();
  }
  override leaseSession(params: LeaseParams): Promise<SessionLease | undefined> {
    return super.leaseSession({ ...params, ttlMs: this.ttlMs });
  }
  override renewLease(lease: SessionLease): Promise<SessionLease> {
    return super.renewLease(lease, this.ttlMs);
  }
}

/**
 * A store with only the methods every SessionService has, in front of `inner`: no leases and no
 * health check, as a store written before those capabilities existed.
 */
export function requiredMethodsOnly(inner: SessionService): SessionService {
  return {
    createSession: (params) => inner.createSession(params),
    getSession: (params) => inner.getSession(params),
    listSessions: (params) => inner.listSessions(params),
    deleteSession: (params) => inner.deleteSession(params),
    appendEvent: (params) => inner.appendEvent(params),
  };
}
