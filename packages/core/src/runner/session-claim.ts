import { hostname } from 'node:os';
import { LeaseLostError, SessionBusyError, StorageError } from '../errors.js';
import type { Session, SessionKey, SessionService } from '../sessions/session.js';
import {
  supportsLeases,
  type LeaseParams,
  type LeaseTaken,
  type LeasingSessionService,
  type SessionLease,
} from '../sessions/session-lease.js';
import { acquireSession } from './session-lock.js';
import { rememberMaybeLeased, rememberUnreleased, takeOverOwner } from './unreleased-leases.js';

/**
 * A running invocation's hold on its session: the in-process lock (one invocation per session in
 * this process) and, when the store can lease, the store's lease (one invocation per session
 * across processes). Internal to the runner.
 */
export interface SessionClaim {
  /** The store's lease, kept current by renewals; undefined when the store does not lease. */
  readonly lease: SessionLease | undefined;
  /** The session the store read along with the lease (`read`), if it did: the caller need not read it again. */
  readonly session: Session | undefined;
  /**
   * Renews the lease every third of its time to live until the claim is released; `onLost` hears
   * when another owner took the session over (the run must stop: its writes would be refused).
   */
  keepAlive(onLost: (error: LeaseLostError) => void): void;
  /** Gives the session back (in-process lock and lease). Safe to call more than once. */
  release(): Promise<void>;
}

// One name per process; each claim adds a number, so two runs of one process never share a lease.
const PROCESS_OWNER = `${hostname()}:${process.pid}:${Date.now().toString(36)}`;
let claims = 0;

/**
 * Claims a session for one invocation, or throws {@link SessionBusyError} when this process or
 * another one is running an invocation on it. Leasing a missing session throws the store's
 * `SessionNotFoundError`, after the in-process lock is given back.
 */
export async function claimSession(
  service: SessionService,
  key: SessionKey,
  ttlMs: number,
  read?: LeaseParams['read'],
): Promise<SessionClaim> {
  const unlock = acquireSession(service, key.appName, key.userId, key.sessionId);
  if (!supportsLeases(service)) return new LocalClaim(unlock);
  let lease: LeaseTaken | undefined;
  const leasedAt = Date.now();
  // A lease an earlier run of this process could not give back is taken again by its owner name.
  const owner = takeOverOwner(service, key) ?? `${PROCESS_OWNER}:${++claims}`;
  try {
    lease = await service.leaseSession({
      appName: key.appName,
      userId: key.userId,
      sessionId: key.sessionId,
      owner,
      ttlMs,
      ...(read ? { read } : {}),
    });
  } catch (error) {
    unlock();
    // The store may have granted it before the failure: the next claim asks under this name again.
    if (error instanceof StorageError) rememberMaybeLeased(service, key, owner, leasedAt + ttlMs);
    throw error;
  }
  if (!lease) {
    unlock();
    const seconds = Math.ceil(ttlMs / 1000);
    throw new SessionBusyError(
      `Session '${key.sessionId}' (app '${key.appName}', user '${key.userId}') is running an invocation in another process (it holds the session's lease). It frees when that invocation ends; if that process stopped, its lease expires within ${seconds} s (leases last ${seconds} s unless renewed, if it leases as this runner does).`,
      {
        session: { appName: key.appName, userId: key.userId, sessionId: key.sessionId },
        retryAfterMs: ttlMs,
        remedy:
          "Wait for it to finish, or use another session; once the lease expires (the runner's leaseTtlMs, 30 s by default), the invocation of a process that stopped can be resumed with its invocationId.",
      },
    );
  }
  const { session, ...held } = lease;
  const claim = new LeasedClaim(service, held, ttlMs, unlock, leasedAt);
  claim.session = session;
  return claim;
}

/** A store without leases: only this process's lock. */
class LocalClaim implements SessionClaim {
  readonly lease = undefined;
  readonly session = undefined;
  constructor(private unlock: (() => void) | undefined) {}
  keepAlive(): void {}
  async release(): Promise<void> {
    this.unlock?.();
    this.unlock = undefined;
  }
}

class LeasedClaim implements SessionClaim {
  /** When the next renewal is due (ms); renewals are driven by the shared {@link renewals} ticker. */
  renewAt = Infinity;
  session: Session | undefined;
  private onLost: ((error: LeaseLostError) => void) | undefined;
  private renewing = false;
  private released: Promise<void> | undefined;

  /** When the lease expires at the latest, on this process's clock: its last taking or renewal began before. */
  private expiresBy: number;

  constructor(
    private readonly service: LeasingSessionService,
    public lease: SessionLease,
    readonly ttlMs: number,
    private readonly unlock: () => void,
    leasedAt: number,
  ) {
    this.expiresBy = leasedAt + ttlMs;
  }

  keepAlive(onLost: (error: LeaseLostError) => void): void {
    this.onLost = onLost;
    this.renewAt = Date.now() + this.ttlMs / 3;
    renewals.add(this);
  }

  /** Called by the ticker when due; one renewal at a time. */
  renew(): void {
    if (this.renewing) return;
    this.renewing = true;
    const renewedAt = Date.now();
    this.service.renewLease(this.lease, this.ttlMs).then(
      (renewed) => {
        this.renewing = false;
        this.lease = renewed;
        this.expiresBy = renewedAt + this.ttlMs;
        this.renewAt = Date.now() + this.ttlMs / 3;
      },
      (error: unknown) => {
        this.renewing = false;
        if (error instanceof LeaseLostError) {
          renewals.delete(this);
          this.onLost?.(error);
        }
        // Other failures (a dropped connection) are retried at the next tick; if the lease
        // expires meanwhile and someone takes it, the next append fails with LeaseLostError.
      },
    );
  }

  release(): Promise<void> {
    return (this.released ??= this.giveBack());
  }

  private async giveBack(): Promise<void> {
    renewals.delete(this);
    this.unlock();
    try {
      await this.service.releaseLease(this.lease);
    } catch {
      // The store is unreachable: the run has ended all the same, so its lease must not keep the
      // session busy until it expires. It is released once the store answers, and the next claim
      // of this process takes it back at once (see unreleased-leases.ts).
      rememberUnreleased(this.service, this.lease, this.expiresBy);
    }
  }
}

/**
 * One timer for every running claim of the process (not one per run): it wakes at the shortest
 * renewal period among them and renews those that are due. It never keeps the process alive.
 */
const renewals = new (class Renewals {
  private readonly active = new Set<LeasedClaim>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private period = Infinity;

  add(claim: LeasedClaim): void {
    this.active.add(claim);
    const period = Math.max(1, Math.floor(claim.ttlMs / 3));
    if (this.timer && period >= this.period) return;
    if (this.timer) clearInterval(this.timer);
    this.period = period;
    this.timer = setInterval(() => this.tick(), period);
    this.timer.unref?.();
  }

  delete(claim: LeasedClaim): void {
    this.active.delete(claim);
  }

  private tick(): void {
    // Stopped here rather than when the last claim goes, so back-to-back runs do not each start and
    // stop a timer.
    if (this.active.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.period = Infinity;
      return;
    }
    const now = Date.now();
    for (const claim of this.active) if (claim.renewAt <= now) claim.renew();
  }
})();
