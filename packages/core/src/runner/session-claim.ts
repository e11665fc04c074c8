import { hostname } from 'node:os';
import { LeaseLostError, SessionBusyError } from '../errors.js';
import type { SessionKey, SessionService } from '../sessions/session.js';
import { supportsLeases, type LeasingSessionService, type SessionLease } from '../sessions/session-lease.js';
import { newId } from '../utils/ids.js';
import { acquireSession } from './session-lock.js';

/**
 * A running invocation's hold on its session: the in-process lock (one invocation per session in
 * this process) and, when the store can lease, the store's lease (one invocation per session
 * across processes). Internal to the runner.
 */
export interface SessionClaim {
  /** The store's lease, kept current by renewals; undefined when the store does not lease. */
  readonly lease: SessionLease | undefined;
  /**
   * Renews the lease every third of its time to live until stopped; `onLost` hears when another
   * owner took the session over (the run must stop: its writes would be refused).
   */
  keepAlive(onLost: (error: LeaseLostError) => void): () => void;
  /** Gives the session back (in-process lock and lease). Safe to call more than once. */
  release(): Promise<void>;
}

// One name per process; each run adds its own id, so two runs of one process never share a lease.
const PROCESS_OWNER = `${hostname()}:${process.pid}`;

/**
 * Claims a session for one invocation, or throws {@link SessionBusyError} when this process or
 * another one is running an invocation on it. Leasing a missing session throws the store's
 * `SessionNotFoundError`, after the in-process lock is given back.
 */
export async function claimSession(service: SessionService, key: SessionKey, ttlMs: number): Promise<SessionClaim> {
  const unlock = acquireSession(service, key.appName, key.userId, key.sessionId);
  if (!supportsLeases(service)) return { lease: undefined, keepAlive: () => () => undefined, release: once(async () => unlock()) };
  let lease: SessionLease | undefined;
  try {
    lease = await service.leaseSession({ ...key, owner: `${PROCESS_OWNER}:${newId()}`, ttlMs });
  } catch (error) {
    unlock();
    throw error;
  }
  if (!lease) {
    unlock();
    throw new SessionBusyError(
      `Session '${key.sessionId}' (app '${key.appName}', user '${key.userId}') is running an invocation in another process (it holds the session's lease). Wait for it to finish, or use another session.`,
    );
  }
  return new LeasedClaim(service, lease, ttlMs, unlock);
}

class LeasedClaim implements SessionClaim {
  private timer: ReturnType<typeof setInterval> | undefined;
  readonly release: () => Promise<void>;

  constructor(
    private readonly service: LeasingSessionService,
    public lease: SessionLease,
    private readonly ttlMs: number,
    unlock: () => void,
  ) {
    this.release = once(async () => {
      this.stop();
      unlock();
      try {
        await this.service.releaseLease(this.lease);
      } catch {
        // The store is unreachable: the lease then simply expires after its time to live.
      }
    });
  }

  keepAlive(onLost: (error: LeaseLostError) => void): () => void {
    this.timer = setInterval(() => {
      this.service.renewLease(this.lease, this.ttlMs).then(
        (renewed) => {
          this.lease = renewed;
        },
        (error: unknown) => {
          if (error instanceof LeaseLostError) {
            this.stop();
            onLost(error);
          }
          // Other failures (a dropped connection) are retried at the next tick; if the lease
          // expires meanwhile and someone takes it, the next append fails with LeaseLostError.
        },
      );
    }, Math.max(1, Math.floor(this.ttlMs / 3)));
    // A lease renewal alone must not keep a process alive.
    this.timer.unref?.();
    return () => this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
