import type { Event } from '../events/event.js';
import { StaleSessionError, StorageError } from '../errors.js';
import type { Session, SessionService } from '../sessions/session.js';
import type { SessionClaim } from './session-claim.js';

/** How long a run keeps trying to store its error record while the store is down. */
const LATE_RECORD_LIMIT_MS = 60_000;

/**
 * Stores a failed run's error record once the store is back, holding the run's claim on the session
 * meanwhile (so no new turn starts after a run whose end is not yet recorded), then releases it.
 * Gives up when another process took the session over (it owns what happens next), on an error the
 * store will not get over, or after {@link LATE_RECORD_LIMIT_MS}; the invocation then stays open,
 * resumable with its id.
 */
export async function storeWhenBack(
  service: SessionService,
  session: Session,
  record: Event,
  claim: SessionClaim,
): Promise<void> {
  const deadline = Date.now() + LATE_RECORD_LIMIT_MS;
  let current = session;
  let delay = 50;
  try {
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 2_000);
      try {
        await service.appendEvent({ session: current, event: record, lease: claim.lease });
        return;
      } catch (error) {
        if (error instanceof StaleSessionError) {
          // The write that failed may have landed after all (a connection lost during COMMIT).
          const reloaded = await service
            .getSession({ appName: session.appName, userId: session.userId, sessionId: session.id })
            .catch(() => undefined);
          if (reloaded) current = reloaded;
          continue;
        }
        if (!(error instanceof StorageError)) return;
      }
    }
  } finally {
    await claim.release();
  }
}
