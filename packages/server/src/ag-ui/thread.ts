import type { Session, SessionService } from '@troupe/core';
import { ADMIN, assertMayAccess } from '../auth.js';

/** The user of AG-UI threads on a server without auth (or for an admin token that names no user). */
export const AG_UI_USER = 'ag-ui';

/**
 * The user a thread belongs to: the token's user. An admin token (and every request of a server
 * without auth) acts as {@link AG_UI_USER}, or as `forwardedProps.userId` when the input names
 * one, e.g. for a backend that calls on behalf of its users. A user's token naming another user
 * there is refused (403), as on every other route.
 */
export function threadUser(principal: string, forwardedProps: unknown): string {
  const named = (forwardedProps as { userId?: unknown } | null | undefined)?.userId;
  const userId = typeof named === 'string' && named !== '' ? named : principal === ADMIN ? AG_UI_USER : principal;
  assertMayAccess(principal, userId);
  return userId;
}

/**
 * The thread's session, created empty on first use (`created`). Threads are per user, as sessions
 * are: the same thread id of another user is another session, which this user never sees.
 */
export async function threadSession(
  service: SessionService,
  key: { appName: string; userId: string; sessionId: string },
): Promise<{ session: Session; created: boolean }> {
  const existing = await service.getSession(key);
  if (existing) return { session: existing, created: false };
  try {
    return { session: await service.createSession(key), created: true };
  } catch (error) {
    // Two first requests of one thread at once: the other one created it.
    const created = await service.getSession(key);
    if (created) return { session: created, created: false };
    throw error;
  }
}
