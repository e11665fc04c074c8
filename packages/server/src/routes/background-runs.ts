import { type Context, Hono } from 'hono';
import type { BackgroundRuns } from '../background-runs.js';
import { clientGoneOf } from '../client-gone.js';
import { HttpError } from '../http-error.js';
import { queuedRunStream } from '../queued-run-stream.js';
import { backgroundRunBody, readBody } from '../request-body.js';
import { assertNoOpenInterrupts } from '../resume-guard.js';
import { runOfSession, sessionOfPath } from '../run-access.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { checkStateWrite } from '../state-policy.js';
import { encodeRunInfo } from '../wire.js';
import { reportFailures } from './run.js';

/** Longest `Last-Event-ID` accepted: stream entry ids and event ids are far shorter. */
const MAX_LAST_EVENT_ID = 256;

/**
 * Background runs of a session, executed by workers (createApp's `queue`):
 * `POST|GET /apps/{app}/users/{user}/sessions/{id}/runs`, `GET .../runs/{runId}`,
 * `GET .../runs/{runId}/stream` (server-sent events, `Last-Event-ID`) and `POST .../runs/{runId}/cancel`.
 */
export function backgroundRunRoutes(ctx: ServerContext, queue: BackgroundRuns): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  const base = '/apps/:app/users/:user/sessions/:session/runs';

  routes.post(base, async (c) => {
    const session = await sessionOfPath(ctx, c);
    const body = await readBody(c, backgroundRunBody);
    if (body.stateDelta) checkStateWrite('stateDelta', body.stateDelta, c.get('principal'), ctx.stateLimits);
    await assertNoOpenInterrupts(ctx.sessionService, session);
    const info = await queue.enqueue({
      ...session,
      ...(body.newMessage ? { newMessage: body.newMessage } : {}),
      ...(body.input ? { input: body.input } : {}),
      ...(body.stateDelta ? { stateDelta: body.stateDelta } : {}),
      ...(body.streaming ? { streaming: true } : {}),
      multitaskStrategy: body.multitaskStrategy ?? 'reject',
      ...(body.runId ? { runId: body.runId } : {}),
    });
    return c.json(encodeRunInfo(info), 202);
  });

  routes.get(base, async (c) => {
    const session = await sessionOfPath(ctx, c);
    return c.json((await queue.list(session)).map(encodeRunInfo));
  });

  routes.get(`${base}/:runId`, async (c) => {
    const session = await sessionOfPath(ctx, c);
    return c.json(encodeRunInfo(await runOfSession(queue, c.req.param('runId'), session)));
  });

  routes.get(`${base}/:runId/stream`, async (c) => {
    const session = await sessionOfPath(ctx, c);
    const { runId } = await runOfSession(queue, c.req.param('runId'), session);
    const lastEventId = lastEventIdOf(c);
    // Once the 200 is sent, a failure can only end the stream: a queue that does not answer now is a 503.
    await queue.checkHealth?.();
    const tracked = ctx.runs.begin(sessionKey(session.appName, session.userId, session.sessionId), clientGoneOf(c));
    return queuedRunStream({ queue, runId, session, lastEventId, tracked, onFailure: reportFailures(ctx, c) });
  });

  routes.post(`${base}/:runId/cancel`, async (c) => {
    const session = await sessionOfPath(ctx, c);
    const { runId } = await runOfSession(queue, c.req.param('runId'), session);
    return c.json(encodeRunInfo(await queue.cancel(runId, session)));
  });

  return routes;
}

/**
 * Where a reconnecting client stopped: the `Last-Event-ID` header (browsers' EventSource sends it
 * on reconnect), or the `lastEventId` query parameter for a first connection that cannot set headers.
 */
function lastEventIdOf(c: Context<ServerEnv>): string | undefined {
  const value = c.req.header('Last-Event-ID') ?? c.req.query('lastEventId');
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_LAST_EVENT_ID || /[\r\n\0]/.test(value)) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `The Last-Event-ID '${value.slice(0, 64)}' is not an id this server sent. Send the id: of the last frame received, or none to start over.`,
      'Last-Event-ID',
    );
  }
  return value;
}
