import type { SessionKey } from '@troupe/core';
import { storedOutcomeOf } from '@troupe/core/hosting';
import { HttpError, isStoreFailure } from './http-error.js';
import { sessionPath } from './http-remedy.js';

/**
 * How `/run` answers a run that the store stopped, or that a store failure followed, by what the
 * run left stored (core's `storedOutcomeOf`):
 * - its end is stored (its error event, or all its events when the failure came after, such as
 *   adding the session to memory): `'answer'`, the run's events as for any run (a 200);
 * - nothing of it is stored: the store's error itself, 503 `STORAGE`, safe to repeat;
 * - part of it may be stored and its end is not: 500 `RUN_OUTCOME_UNKNOWN` with the invocation to
 *   look up, since repeating the request could do its work twice.
 * A run another process took over (`LEASE_LOST`) or wrote to (`STALE_SESSION`) keeps its 409.
 * Undefined for a failure that is not the store's: the run's own error event ends the answer.
 */
export function storeFailureAnswer(error: unknown, session: SessionKey): StoreFailureAnswer | undefined {
  if (!isStoreFailure(error)) return undefined;
  const outcome = storedOutcomeOf(error);
  if (outcome?.stored === 'outcome') return { answer: 'events' };
  if (outcome?.stored !== 'unknown' || (error as { code: string }).code !== 'STORAGE')
    return { answer: 'error', error };
  const { invocationId } = outcome;
  const path = sessionPath(session);
  const unknown = new HttpError(
    500,
    'RUN_OUTCOME_UNKNOWN',
    `The session store failed during the run of invocation '${invocationId}' after part of it may have been stored, so whether it finished is unknown, and repeating this request could do its work twice. Once the store is back, GET ${path} shows the events of invocation '${invocationId}': if they end with its answer it finished; if not, continue it with POST ${path}/resume and { "invocationId": "${invocationId}" }.`,
    undefined,
    { cause: error, invocationId },
  );
  return { answer: 'error', error: unknown };
}

/** What {@link storeFailureAnswer} decided: answer the run's events, or answer with `error`. */
export type StoreFailureAnswer = { answer: 'events' } | { answer: 'error'; error: unknown };
