import { Hono } from 'hono';
import { InvocationNotFoundError } from '@troupe/core';
import { z } from 'zod';
import { assertMayAccess } from '../auth.js';
import { HttpError } from '../http-error.js';
import { readBody } from '../request-body.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { encodeSession } from '../wire.js';

/** Body of `POST .../sessions/{id}/rewind` (ADK's): the invocation to rewind to before. */
const rewindBody = z.object({
  invocationId: z
    .string({ error: 'expected the id of the invocation to rewind to before, e.g. { "invocationId": "e-…" }' })
    .min(1)
    .max(256, { error: 'expected at most 256 characters' }),
});

/**
 * `POST /apps/{app}/users/{user}/sessions/{id}/rewind` with `{ invocationId }` (ADK's rewind):
 * takes the session back to before that invocation with `runner.rewind` (state, artifacts; the
 * events stay, marked rewound) and answers the session as stored afterwards. 404 for an unknown
 * session or invocation, 409 `SESSION_BUSY` while an invocation runs on it.
 */
export function rewindRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.post('/apps/:app/users/:user/sessions/:session/rewind', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    const runner = await ctx.registry.runner(appName);
    const { invocationId } = await readBody(c, rewindBody);
    try {
      await runner.rewind({ userId, sessionId, beforeInvocationId: invocationId });
    } catch (error) {
      if (error instanceof InvocationNotFoundError)
        throw new HttpError(404, error.code, error.message, 'invocationId', { cause: error });
      throw error;
    }
    const session = await ctx.sessionService.getSession({ appName, userId, sessionId });
    if (!session)
      throw new HttpError(404, 'SESSION_NOT_FOUND', `Session '${sessionId}' was deleted right after its rewind.`);
    return c.json(encodeSession(session));
  });

  return routes;
}
