import type { Session, SessionKey, SessionService } from './session.js';

/**
 * The right of one owner (one running invocation) to write to a session, for a while. Stores that
 * can lease keep one lease per session; `epoch` grows with every new holder, so a store can tell a
 * current holder from one whose lease was taken over while it was frozen or cut off.
 */
export interface SessionLease extends SessionKey {
  /** Who holds it: unique per running invocation (process and run). */
  readonly owner: string;
  /** Increases by one each time the lease changes hands (or is taken again after a release). */
  readonly epoch: number;
  /** Milliseconds since the epoch, on the store's clock, after which another owner may take it. */
  readonly expiresAt: number;
}

/** What {@link LeasingSessionService.leaseSession} takes. */
export interface LeaseParams extends SessionKey {
  owner: string;
  /** How long the lease holds unless renewed. */
  ttlMs: number;
  /**
   * Asks for the session with the lease, where the store can read it in the same round trip:
   * as `getSession({ ...key, afterVersion })` would answer once the lease is taken. A store may
   * ignore it (the runner then reads the session itself).
   */
  read?: { afterVersion?: number };
}

/** A lease taken, and the session when {@link LeaseParams.read} asked for it and the store read it along. */
export type LeaseTaken = SessionLease & { readonly session?: Session };

/**
 * A {@link SessionService} that can lease sessions: an optional capability the runner checks for
 * (with {@link supportsLeases}). While a lease is held, nobody else can lease the session, and an
 * append that carries a lease whose epoch is no longer the session's fails with `LeaseLostError`
 * and stores nothing.
 */
export interface LeasingSessionService extends SessionService {
  /**
   * Takes the session's lease for `owner`. Undefined when another owner holds an unexpired lease;
   * a lease that expired (its owner crashed or froze) is taken over, with a higher epoch.
   * Throws `SessionNotFoundError` for a session that does not exist.
   */
  leaseSession(params: LeaseParams): Promise<LeaseTaken | undefined>;
  /**
   * Extends a held lease to `ttlMs` from now and returns it. Throws `LeaseLostError` when another
   * owner took the session over (an expired lease nobody took is renewed).
   */
  renewLease(lease: SessionLease, ttlMs: number): Promise<SessionLease>;
  /** Gives the lease up so another owner can take it at once. Does nothing if it was taken over. */
  releaseLease(lease: SessionLease): Promise<void>;
}

/** True when `service` implements session leases. */
export function supportsLeases(service: SessionService): service is LeasingSessionService {
  const s = service as Partial<LeasingSessionService>;
  return (
    typeof s.leaseSession === 'function' && typeof s.renewLease === 'function' && typeof s.releaseLease === 'function'
  );
}
