import type { Event } from '../events/event.js';
import type { Session, SessionService } from '../sessions/session.js';

/**
 * What a run that ended in an error (thrown to a caller iterating it) left in its session, as far
 * as the runner knows when it throws:
 * - `'nothing'`: nothing of it is stored (its opening event was refused, and the session was read
 *   back without it): the same request can be made again;
 * - `'outcome'`: its end is stored: its error event, or, when the error came after the run's end
 *   (an `afterRun` plugin such as adding the session to memory), every event of the run;
 * - `'unknown'`: part of it may be stored and its end is not, or the store could not say whether a
 *   write landed (a connection lost during COMMIT). Making the request again could do its work twice:
 *   read the session's events of `invocationId` first, or resume the invocation.
 */
export type StoredOutcome = 'nothing' | 'outcome' | 'unknown';

/** What {@link storedOutcomeOf} tells about an error a run threw. */
export interface RunStoredOutcome {
  /** The run's invocation: its events in the session carry this id. */
  invocationId: string;
  stored: StoredOutcome;
}

const outcomes = new WeakMap<object, RunStoredOutcome>();

/** Records what the run that throws `error` left stored (called by the runner as the run ends). */
export function recordStoredOutcome(error: Error, outcome: RunStoredOutcome): void {
  outcomes.set(error, outcome);
}

/**
 * For hosts (`@troupe/core/hosting`): what the run that threw `error` (from `runAsync`, `start`,
 * `startResume` or `resumeAsync`) left in its session, so a server can tell a request that is safe
 * to repeat from one whose work may be done already. Undefined for an error no run threw (misuse
 * refused before the run started stores nothing).
 */
export function storedOutcomeOf(error: unknown): RunStoredOutcome | undefined {
  return typeof error === 'object' && error !== null ? outcomes.get(error) : undefined;
}

/**
 * Whether `event` made it into the stored session, read back after its append failed: a store can
 * lose its connection after committing a write (the write then fails, though it landed). True or
 * false when the session could be read, undefined when it could not (the store is still away).
 */
export async function wasStored(service: SessionService, session: Session, event: Event): Promise<boolean | undefined> {
  try {
    // Only what was stored since this copy (a store that cannot read incrementally answers it all).
    const stored = await service.getSession({
      appName: session.appName,
      userId: session.userId,
      sessionId: session.id,
      afterVersion: session.version,
    });
    return stored?.events.some((e) => e.id === event.id) ?? false;
  } catch {
    return undefined;
  }
}
