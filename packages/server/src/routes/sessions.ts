import { Hono, type Context } from 'hono';
import { SessionExistsError, TEMP_PREFIX } from '@troupe/core';
import { ACTIVE_RUN_STATUSES } from '@troupe/core/stores';
import { assertMayAccess } from '../auth.js';
import { HttpError, sessionNotFound } from '../http-error.js';
import { createSessionBody, getSessionQuery, readBody, updateSessionBody, validate } from '../request-body.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { checkStateWrite } from '../state-policy.js';
import { encodeSession, secondsToMs } from '../wire.js';

/** Create, list, read, update (ADK's PATCH: a state delta) and delete sessions: `/apps/{app}/users/{user}/sessions[/{id}]`. */
export function sessionRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  const service = ctx.sessionService;

  /** The app and user of the path, once the caller may touch them and the app exists. */
  async function target(c: Context<ServerEnv>): Promise<{ appName: string; userId: string }> {
    const { app: appName, user: userId } = c.req.param() as { app: string; user: string };
    assertMayAccess(c.get('principal'), userId);
    await ctx.registry.runner(appName);
    return { appName, userId };
  }

  async function create(c: Context<ServerEnv>, pathSessionId: string | undefined) {
    const { appName, userId } = await target(c);
    const body = await readBody(c, createSessionBody, { emptyAllowed: true });
    if (body.state) checkStateWrite('state', body.state, c.get('principal'), ctx.stateLimits);
    if (pathSessionId !== undefined && body.sessionId && body.sessionId !== pathSessionId) {
      throw new HttpError(
        400,
        'INVALID_REQUEST',
        `The body's sessionId '${body.sessionId}' differs from the path's '${pathSessionId}'; send one of them.`,
        'sessionId',
      );
    }
    const sessionId = pathSessionId ?? body.sessionId ?? undefined;
    try {
      const session = await service.createSession({
        appName,
        userId,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(body.state ? { state: body.state } : {}),
      });
      return c.json(encodeSession(session));
    } catch (error) {
      // The store refuses a taken id atomically, so two concurrent creates of one id get one 409.
      if (!(error instanceof SessionExistsError)) throw error;
      throw new HttpError(
        409,
        'SESSION_EXISTS',
        `Session '${sessionId}' already exists for app '${appName}' and user '${userId}'. Pick another id, or omit it to get a new one.`,
        undefined,
        { cause: error },
      );
    }
  }

  routes.post('/apps/:app/users/:user/sessions', (c) => create(c, undefined));
  routes.post('/apps/:app/users/:user/sessions/:session', (c) => create(c, c.req.param('session')));

  routes.get('/apps/:app/users/:user/sessions', async (c) => {
    const { appName, userId } = await target(c);
    const { sessions } = await service.listSessions({ appName, userId });
    return c.json(sessions.map((session) => encodeSession(session, false)));
  });

  routes.get('/apps/:app/users/:user/sessions/:session', async (c) => {
    const { appName, userId } = await target(c);
    const sessionId = c.req.param('session');
    const query = validate(getSessionQuery, c.req.query(), 'query');
    const session = await service.getSession({
      appName,
      userId,
      sessionId,
      ...(query.numRecentEvents === undefined ? {} : { numRecentEvents: query.numRecentEvents }),
      ...(query.afterTimestamp === undefined ? {} : { afterTimestamp: secondsToMs(query.afterTimestamp) }),
    });
    if (!session) throw sessionNotFound({ appName, userId, sessionId });
    return c.json(encodeSession(session));
  });

  // ADK's session update: the state delta is stored as an event (so history and replays of the
  // state agree), under the session's claim; the answer is the session as GET returns it.
  routes.patch('/apps/:app/users/:user/sessions/:session', async (c) => {
    const { appName, userId } = await target(c);
    const sessionId = c.req.param('session');
    const body = await readBody(c, updateSessionBody);
    checkStateWrite('stateDelta', body.stateDelta, c.get('principal'), ctx.stateLimits);
    const temp = Object.keys(body.stateDelta).find((key) => key.startsWith(TEMP_PREFIX));
    if (temp !== undefined) {
      throw new HttpError(
        400,
        'INVALID_STATE_KEY',
        `The state key '${temp}' cannot be written with PATCH: '${TEMP_PREFIX}' keys live for one invocation and are never stored. Send it as the stateDelta of a run (POST /run), or drop the prefix to keep it in the session.`,
        `stateDelta.${temp}`,
      );
    }
    if (!(await service.getSession({ appName, userId, sessionId, numRecentEvents: 0 })))
      throw sessionNotFound({ appName, userId, sessionId });
    const runner = await ctx.registry.runner(appName);
    // A running invocation holds the session: SessionBusyError, a 409 SESSION_BUSY.
    return c.json(encodeSession(await runner.updateSessionState({ userId, sessionId, stateDelta: body.stateDelta })));
  });

  routes.delete('/apps/:app/users/:user/sessions/:session', async (c) => {
    const { appName, userId } = await target(c);
    const sessionId = c.req.param('session');
    if (!(await service.getSession({ appName, userId, sessionId, numRecentEvents: 0 })))
      throw sessionNotFound({ appName, userId, sessionId });
    const busy = ctx.queue
      ? (await ctx.queue.list({ appName, userId, sessionId })).some((run) => ACTIVE_RUN_STATUSES.includes(run.status))
      : ctx.runs.isRunning(sessionKey(appName, userId, sessionId));
    if (busy) {
      throw new HttpError(
        409,
        'SESSION_BUSY',
        `Session '${sessionId}' is running an invocation; delete it once the run has ended.`,
      );
    }
    await service.deleteSession({ appName, userId, sessionId });
    return c.body(null, 204);
  });

  return routes;
}
