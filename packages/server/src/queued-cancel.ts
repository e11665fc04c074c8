import { type Event, type SessionService } from '@troupe/core';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import type { BackgroundRuns } from './background-runs.js';
import { HttpError } from './http-error.js';
import type { SessionPath } from './run-access.js';

/** How often a cancel request looks whether the cancelled runs have ended. */
const POLL_MS = 50;

/**
 * Cancels the background runs pending or running on a session (the cancel route with createApp's
 * `queue`) and, once they have ended, returns the event the latest of them ended on as stored: its
 * `CANCELLED` event, or the event it ended with if it finished before the cancellation reached it.
 * 404 `NO_RUN` when no run was pending or running, or when the runs were cancelled before a worker
 * started them (then the session holds nothing of them); 503 `CANCEL_PENDING` when they have not
 * ended within `waitMs` (the worker holding one is slow to hear it or gone).
 */
export async function cancelQueuedRuns(
  queue: BackgroundRuns,
  sessionService: SessionService,
  session: SessionPath,
  waitMs: number,
): Promise<Event> {
  const { appName, userId, sessionId } = session;
  const active = (await queue.list(session)).filter((run) => ACTIVE_RUN_STATUSES.includes(run.status));
  if (active.length === 0) throw nothingRuns(session, 'Nothing is pending or running on it.');
  const runIds = new Set(active.map((run) => run.runId));
  for (const runId of runIds) await queue.cancel(runId, session);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const statuses = await Promise.all([...runIds].map((runId) => queue.status(runId, session)));
    if (statuses.every((run) => !ACTIVE_RUN_STATUSES.includes(run.status))) break;
    if (Date.now() >= deadline) {
      throw new HttpError(
        503,
        'CANCEL_PENDING',
        `The run on session '${sessionId}' was told to stop but has not ended within ${waitMs} ms; the worker holding it may be busy or gone (it is then taken over and stopped). Read the run's status later.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const stored = await sessionService.getSession({ appName, userId, sessionId });
  const last = stored?.events.findLast((event) => runIds.has(event.invocationId));
  if (!last)
    throw nothingRuns(
      session,
      'Its runs were cancelled before a worker started them, so the session holds nothing of them.',
    );
  return last;
}

function nothingRuns(session: SessionPath, why: string): HttpError {
  return new HttpError(
    404,
    'NO_RUN',
    `No run of session '${session.sessionId}' (app '${session.appName}', user '${session.userId}') was left to stop. ${why} GET .../sessions/${session.sessionId}/runs lists its runs.`,
  );
}
