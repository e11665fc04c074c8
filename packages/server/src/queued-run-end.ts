import { createEvent, type Event } from '@troupe/core';
import { type RunRecordStatus } from '@troupe/core/stores';
import type { BackgroundRuns } from './background-runs.js';
import type { SessionPath } from './run-access.js';
import { clientRunErrorMessage } from './wire.js';

/** Statuses of a run that ended without doing its work. */
const FAILED: ReadonlySet<RunRecordStatus> = new Set(['failed', 'cancelled', 'abandoned']);

/** The error code of a failed run whose record names none. */
const CODE_OF_STATUS: Readonly<Partial<Record<RunRecordStatus, string>>> = {
  cancelled: 'CANCELLED',
  abandoned: 'RUN_ABANDONED',
};

/**
 * The terminal event a background run's stream lacked: when the run failed (or was cancelled or
 * abandoned) and its stream did not end on an error event, because the store could not keep it or
 * the worker died before writing it, an error event made from the run's status, so that a stream
 * or a `/run` array never hides a failure. Undefined when the stream told the whole story.
 */
export async function unreportedEnd(
  queue: BackgroundRuns,
  runId: string,
  session: SessionPath,
  last: Event | undefined,
  /** How the run ended, when its stream said so (the join's `onEnd`): a success needs no look at the run. */
  endedAs?: RunRecordStatus,
): Promise<Event | undefined> {
  if (last?.errorCode !== undefined) return undefined;
  if (endedAs !== undefined && !FAILED.has(endedAs)) return undefined;
  const info = await queue.status(runId, session);
  if (!FAILED.has(info.status)) return undefined;
  const code = info.error?.code ?? CODE_OF_STATUS[info.status] ?? 'INTERNAL';
  const message = info.error?.message ?? `The run ended '${info.status}' without storing its error event.`;
  return createEvent({
    invocationId: runId,
    author: last?.author ?? '',
    errorCode: code,
    errorMessage: clientRunErrorMessage(code, message),
  });
}
