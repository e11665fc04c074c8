import type { SessionKey } from '../sessions/session.js';
import type { LeasingSessionService, SessionLease } from '../sessions/session-lease.js';

/**
 * Leases whose run has ended but whose release failed (the store was unreachable at that moment),
 * or that the store may have granted to a claim that failed, by store and session. Without this,
 * the session stays refused with `SessionBusyError`, to this process as to any other, until the
 * dead lease expires. Two remedies:
 * - the next claim of the session in this process leases it under the dead lease's owner name,
 *   which stores hand back to that owner at once (a lease is "taken again by its owner");
 * - meanwhile the release is retried in the background until it succeeds or the lease would
 *   have expired anyway, so other processes get the session back too.
 */
const unreleased = new WeakMap<LeasingSessionService, Map<string, Unreleased>>();

interface Unreleased {
  readonly key: SessionKey;
  readonly owner: string;
  /** The lease to give back; undefined when taking it failed and it may or may not be held. */
  readonly lease: SessionLease | undefined;
  /** When the lease expires at the latest, on this process's clock. */
  readonly expiresBy: number;
}

const keyOf = (key: SessionKey): string => `${key.appName}\u0000${key.userId}\u0000${key.sessionId}`;

/**
 * Records a lease this process failed to give back; `expiresBy` (this process's clock) bounds how
 * long it is kept and its release retried.
 */
export function rememberUnreleased(service: LeasingSessionService, lease: SessionLease, expiresBy: number): void {
  const entry: Unreleased = { key: lease, owner: lease.owner, lease, expiresBy };
  retryRelease(service, remember(service, entry), entry, 100);
}

/**
 * Records a lease this process asked for when the store failed to answer: the store may have
 * granted it all the same (a connection lost after the write), so the next claim asks under the
 * same owner name, which such a lease is handed back to.
 */
export function rememberMaybeLeased(
  service: LeasingSessionService,
  key: SessionKey,
  owner: string,
  expiresBy: number,
): void {
  remember(service, { key, owner, lease: undefined, expiresBy });
}

function remember(service: LeasingSessionService, entry: Unreleased): Map<string, Unreleased> {
  let leases = unreleased.get(service);
  if (!leases) {
    leases = new Map();
    unreleased.set(service, leases);
  }
  leases.set(keyOf(entry.key), entry);
  return leases;
}

/**
 * The owner name a new claim of `key` should lease under: the owner of this process's dead lease
 * on it, if any (taken out of the record: the new claim owns it from now on).
 */
export function takeOverOwner(service: LeasingSessionService, key: SessionKey): string | undefined {
  const leases = unreleased.get(service);
  const entry = leases?.get(keyOf(key));
  if (!entry) return undefined;
  leases!.delete(keyOf(key));
  return Date.now() < entry.expiresBy ? entry.owner : undefined;
}

function retryRelease(
  service: LeasingSessionService,
  leases: Map<string, Unreleased>,
  entry: Unreleased,
  delayMs: number,
): void {
  const key = keyOf(entry.key);
  const timer = setTimeout(() => {
    // Taken over by a new claim, or expired meanwhile: nothing left to give back.
    if (leases.get(key) !== entry || !entry.lease) return;
    if (Date.now() >= entry.expiresBy) {
      leases.delete(key);
      return;
    }
    service.releaseLease(entry.lease).then(
      () => {
        if (leases.get(key) === entry) leases.delete(key);
      },
      () => retryRelease(service, leases, entry, Math.min(delayMs * 2, 2_000)),
    );
  }, delayMs);
  // A retry never keeps the process alive: the lease expires on its own anyway.
  timer.unref?.();
}
