import {
  InvocationExistsError,
  LeaseLostError,
  SessionBusyError,
  SessionExistsError,
  SessionNotFoundError,
  StaleSessionError,
} from '../errors.js';
import type { SessionLease } from '../sessions/session-lease.js';
import type { Session, SessionKey } from '../sessions/session.js';

/** The errors every session store raises the same way, so their messages match across stores. */

/** createSession with an id that is taken. */
export function sessionExistsError(appName: string, userId: string, sessionId: string): SessionExistsError {
  return new SessionExistsError(
    `Session '${sessionId}' already exists for app '${appName}' and user '${userId}'. Omit sessionId to get a new one, or use getSession.`,
  );
}

/** appendEvent to a session that is not stored. */
export function missingSessionError(session: Session): SessionNotFoundError {
  return new SessionNotFoundError(
    `Cannot append to session '${session.id}' (app '${session.appName}', user '${session.userId}'): it does not exist.`,
    {
      session: { appName: session.appName, userId: session.userId, sessionId: session.id },
      remedy: 'Create it with createSession first.',
    },
  );
}

/** appendEvent with an outdated copy; `storedVersion` when the store knows it. */
export function staleSessionError(session: Session, storedVersion?: number): StaleSessionError {
  const stored = storedVersion === undefined ? 'the store has moved on' : `the store at ${storedVersion}`;
  return new StaleSessionError(
    `Session '${session.id}' was changed by someone else: this copy is at version ${session.version}, ${stored}. Reload it with getSession and retry.`,
  );
}

/** A write (append or renewal) by a lease holder whose lease another owner has taken over since. */
export function leaseLostError(lease: SessionLease, currentEpoch: number | undefined): LeaseLostError {
  const now = currentEpoch === undefined ? 'it is no longer held' : `it is now at epoch ${currentEpoch}`;
  return new LeaseLostError(
    `Lease of session '${lease.sessionId}' (app '${lease.appName}', user '${lease.userId}') held by '${lease.owner}' at epoch ${lease.epoch} was taken over (${now}); nothing was stored. Another process continues this session; reload it before writing again.`,
  );
}

/** leaseSession on a session that is not stored. */
export function missingLeaseSessionError(key: {
  appName: string;
  userId: string;
  sessionId: string;
}): SessionNotFoundError {
  return new SessionNotFoundError(
    `Cannot lease session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): it does not exist.`,
    {
      session: { appName: key.appName, userId: key.userId, sessionId: key.sessionId },
      remedy: 'Create it with createSession first.',
    },
  );
}

/** createRun with a run id that is taken (by any session: run ids are unique across the store). */
export function runExistsError(runId: string): InvocationExistsError {
  return new InvocationExistsError(
    `Run '${runId}' already exists; nothing was stored. Choose another run id, or omit it to get a new one.`,
  );
}

/** createRun for a session that is not stored. */
export function missingRunSessionError(runId: string, key: SessionKey): SessionNotFoundError {
  return new SessionNotFoundError(
    `Cannot create run '${runId}' for session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): it does not exist.`,
    {
      session: { appName: key.appName, userId: key.userId, sessionId: key.sessionId },
      remedy: 'Create it with createSession first.',
    },
  );
}

/** An exclusive createRun on a session that has a pending or running run. */
export function sessionBusyError(runId: string, key: SessionKey, activeRunId: string): SessionBusyError {
  return new SessionBusyError(
    `Cannot start run '${runId}': session '${key.sessionId}' (app '${key.appName}', user '${key.userId}') already has the active run '${activeRunId}'. Wait for it to finish, cancel it, or start the new run with multitaskStrategy 'enqueue' or 'interrupt'.`,
  );
}
