import { Hono } from 'hono';
import type { Event } from '@troupe/core';
import { assertMayAccess } from '../auth.js';
import { HttpError } from '../http-error.js';
import { cancelQueuedRuns } from '../queued-cancel.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { withTimeout } from '../timeout.js';
import { encodeEvent } from '../wire.js';

/**
 * How long a cancel request waits for its run to end. The runner stops waiting for steps at once,
 * so only a store that does not answer the append of the cancellation can take this long.
 */
const CANCEL_WAIT_MS = 10_000;

/**
 * `POST /apps/{app}/users/{user}/sessions/{id}/cancel`: cancels the run this server is executing
 * on the session and answers, once the run has ended, with the event it ended on as stored: its
 * `CANCELLED` event, or the event it ended with if it finished before the cancellation reached it.
 * A client that reads the session after this answer is sure to see it (the dev UI's Stop).
 * With createApp's `queue`, it cancels the session's pending and running background runs instead,
 * wherever they run, and answers the same way once they have ended.
 */
export function cancelRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.post('/apps/:app/users/:user/sessions/:session/cancel', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    await ctx.registry.runner(appName);
    if (ctx.queue)
      return c.json(
        encodeEvent(
          await cancelQueuedRuns(ctx.queue, ctx.sessionService, { appName, userId, sessionId }, CANCEL_WAIT_MS),
        ),
      );
    const runs = ctx.runs.runsOn(sessionKey(appName, userId, sessionId));
    if (runs.length === 0) throw nothingRuns(appName, userId, sessionId);
    for (const run of runs)
      run.cancel(
        `The run was cancelled on request (POST /apps/${appName}/users/${userId}/sessions/${sessionId}/cancel).`,
      );
    const ends = await withTimeout(
      Promise.all(runs.map((run) => run.finished)),
      CANCEL_WAIT_MS,
      () =>
        new HttpError(
          503,
          'CANCEL_PENDING',
          `The run on session '${sessionId}' was told to stop but has not ended within ${CANCEL_WAIT_MS} ms; its session store may be slow or unreachable. Read the session later to see its cancellation.`,
        ),
    );
    // The runs listed beside the real one were requests the runner refused: they stored nothing.
    const last = ends.find((event): event is Event => event !== undefined);
    if (!last) throw nothingRuns(appName, userId, sessionId);
    // The event a run yielded is stored unless the store failed; read it back to be sure.
    const recent = await ctx.sessionService.getSession({ appName, userId, sessionId, afterTimestamp: last.timestamp });
    const stored = recent?.events.find((event) => event.id === last.id);
    if (!stored) {
      throw new HttpError(
        503,
        'STORAGE',
        `The run on session '${sessionId}' stopped, but the session store did not keep its last event ('${last.errorCode ?? last.id}'). Check the store, then read the session.`,
      );
    }
    return c.json(encodeEvent(stored));
  });

  return routes;
}

function nothingRuns(appName: string, userId: string, sessionId: string): HttpError {
  return new HttpError(
    404,
    'NO_RUN',
    `Nothing is running on session '${sessionId}' (app '${appName}', user '${userId}') in this server. The run may have ended already, or be running in another process; read the session to see how it ended.`,
  );
}
