import { ConfigurationError, SessionNotFoundError, StaleSessionError } from '../errors.js';
import type { Session } from '../sessions/session.js';

/** The errors every session store raises the same way, so their messages match across stores. */

/** createSession with an id that is taken. */
export function sessionExistsError(appName: string, userId: string, sessionId: string): ConfigurationError {
  return new ConfigurationError(`Session '${sessionId}' already exists for app '${appName}' and user '${userId}'. Omit sessionId to get a new one, or use getSession.`);
}

/** appendEvent to a session that is not stored. */
export function missingSessionError(session: Session): SessionNotFoundError {
  return new SessionNotFoundError(
    `Cannot append to session '${session.id}' (app '${session.appName}', user '${session.userId}'): it does not exist. Create it with createSession first.`,
  );
}

/** appendEvent with an outdated copy; `storedVersion` when the store knows it. */
export function staleSessionError(session: Session, storedVersion?: number): StaleSessionError {
  const stored = storedVersion === undefined ? 'the store has moved on' : `the store at ${storedVersion}`;
  return new StaleSessionError(`Session '${session.id}' was changed by someone else: this copy is at version ${session.version}, ${stored}. Reload it with getSession and retry.`);
}
