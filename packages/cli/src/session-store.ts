import { InMemorySessionService, type Session, type SessionService } from '@troupe/core';

/**
 * Creates the session store the CLI runs with. This is the one place the CLI picks a store: a
 * persistent one (SQLite at `.troupe/troupe.db`) replaces the in-memory store here.
 */
export function createSessionService(): SessionService {
  return new InMemorySessionService();
}

/** Which session to open. */
export interface SessionRequest {
  appName: string;
  userId: string;
  /** An existing session to continue, or the id of a new one. A fresh id is made when omitted. */
  sessionId?: string | undefined;
}

/** Returns the requested session, creating it when it does not exist yet. */
export async function openSession(service: SessionService, request: SessionRequest): Promise<Session> {
  const { appName, userId, sessionId } = request;
  if (sessionId !== undefined) {
    const existing = await service.getSession({ appName, userId, sessionId });
    if (existing) return existing;
    return service.createSession({ appName, userId, sessionId });
  }
  return service.createSession({ appName, userId });
}
