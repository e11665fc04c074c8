import type { Event, InterruptInfo } from '../events/event.js';
import { InterruptAnsweredError } from '../errors.js';
import type { SessionKey } from '../sessions/session.js';
import { answeredIn } from './open-interrupts.js';

/**
 * Refuses a resume that answers an interrupt a stored resume record answered already (a second
 * click on "approve", a retried request): `InterruptAnsweredError` naming it and its invocation,
 * before anything is stored. Answers to the `open` interrupts, and ids the session never had (an
 * `InterruptResponseError` later), pass.
 */
export function refuseAnsweredTwice(
  events: readonly Event[],
  responses: unknown,
  open: readonly InterruptInfo[],
  session: SessionKey,
): void {
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) return;
  const openIds = new Set(open.map((interrupt) => interrupt.id));
  for (const id of Object.keys(responses)) {
    if (openIds.has(id)) continue;
    const invocationId = answeredIn(events, id);
    if (invocationId === undefined) continue;
    throw new InterruptAnsweredError(
      `Interrupt '${id}' of invocation '${invocationId}' in session '${session.sessionId}' was already answered; this answer was not stored, and the first one stands.`,
      id,
      invocationId,
      { session },
    );
  }
}
