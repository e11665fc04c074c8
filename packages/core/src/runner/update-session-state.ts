import { createEvent } from '../events/event.js';
import { ConfigurationError, SessionNotFoundError } from '../errors.js';
import { openInterrupts } from '../interrupts/open-interrupts.js';
import type { Session, SessionKey, SessionService } from '../sessions/session.js';
import { assertValidDelta, TEMP_PREFIX } from '../sessions/state-keys.js';
import { newId } from '../utils/ids.js';
import { claimSession } from './session-claim.js';

/** What {@link updateSessionState} writes, and where. */
export interface UpdateSessionStateParams {
  userId: string;
  sessionId: string;
  /** The keys to set (session, `user:` and `app:` keys; not `temp:` keys, which live for one invocation). */
  stateDelta: Record<string, unknown>;
}

/**
 * Writes state outside a turn, as ADK's `PATCH .../sessions/{id}` does: one event by `'user'`,
 * without content, carrying the delta, appended under the session's claim so it never interleaves
 * with a running invocation (`SessionBusyError`). The event gets its own invocation id (`p-…`),
 * except while the session's latest invocation waits for answers: it then joins that invocation,
 * so the interrupts stay open and the invocation can still be resumed. Returns the session as
 * stored afterwards.
 */
export async function updateSessionState(
  service: SessionService,
  key: SessionKey,
  stateDelta: Record<string, unknown>,
  leaseTtlMs: number,
): Promise<Session> {
  if (typeof stateDelta !== 'object' || stateDelta === null || Array.isArray(stateDelta)) {
    throw new ConfigurationError(
      `updateSessionState's stateDelta must be an object of state keys and values; got ${JSON.stringify(stateDelta)}.`,
    );
  }
  assertValidDelta(stateDelta);
  const temp = Object.keys(stateDelta).find((k) => k.startsWith(TEMP_PREFIX));
  if (temp !== undefined) {
    throw new ConfigurationError(
      `updateSessionState cannot write '${temp}': '${TEMP_PREFIX}' keys live for one invocation and are never stored, so this write would be lost. Pass it with the run (stateDelta of runner.run), or drop the prefix to keep it in the session.`,
    );
  }
  const claim = await claimSession(service, key, leaseTtlMs);
  try {
    const session = await service.getSession(key);
    if (!session) {
      throw new SessionNotFoundError(
        `Session '${key.sessionId}' not found for app '${key.appName}' and user '${key.userId}'.`,
        { session: key, remedy: 'Create it first with sessionService.createSession.' },
      );
    }
    const paused = openInterrupts(session.events).length > 0 ? session.events.at(-1)!.invocationId : undefined;
    const event = createEvent({
      invocationId: paused ?? `p-${newId()}`,
      author: 'user',
      actions: { stateDelta: { ...stateDelta } },
    });
    await service.appendEvent({ session, event, lease: claim.lease });
    return (await service.getSession(key)) ?? session;
  } finally {
    await claim.release();
  }
}
