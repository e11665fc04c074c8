import { SessionBusyError } from '../errors.js';
import type { SessionService } from '../sessions/session.js';

// Keyed by the session service, so two runners sharing one store also exclude each other.
const busy = new WeakMap<SessionService, Set<string>>();

/** True while a session of `service` runs an invocation in this process. */
export function isSessionBusy(service: SessionService, appName: string, userId: string, sessionId: string): boolean {
  return busy.get(service)?.has(`${appName}\u0000${userId}\u0000${sessionId}`) ?? false;
}

/** Marks a session as running an invocation; throws {@link SessionBusyError} if it already is. Returns the release function. */
export function acquireSession(
  service: SessionService,
  appName: string,
  userId: string,
  sessionId: string,
): () => void {
  let keys = busy.get(service);
  if (!keys) {
    keys = new Set();
    busy.set(service, keys);
  }
  const key = `${appName}\u0000${userId}\u0000${sessionId}`;
  if (keys.has(key)) {
    throw new SessionBusyError(
      `Session '${sessionId}' (app '${appName}', user '${userId}') is already running an invocation.`,
      { session: { appName, userId, sessionId }, remedy: 'Wait for it to finish, or use another session.' },
    );
  }
  keys.add(key);
  const held = keys;
  return () => {
    held.delete(key);
  };
}
