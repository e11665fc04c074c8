import { Hono } from 'hono';
import type { RunConfig } from '@troupe/core';
import { assertMayAccess } from '../auth.js';
import { isStoreFailure, toHttpError } from '../http-error.js';
import { readBody, resumeBody, runBody, type RunBody } from '../request-body.js';
import { streamRun } from '../run-stream.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { encodeEvent } from '../wire.js';

/**
 * `POST /run` (the run's events as one JSON array), `POST /run_sse` (server-sent events) and
 * `POST /apps/{app}/users/{user}/sessions/{id}/resume` (the rest of a paused run, as SSE).
 */
export function runRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.post('/run', async (c) => {
    const body = await readBody(c, runBody);
    assertMayAccess(c.get('principal'), body.userId);
    const runner = await ctx.registry.runner(body.appName);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), c.req.raw.signal);
    try {
      // run() reports a failure inside the agents as the result (its error event included) and rejects only for misuse.
      const result = await runner.run({ ...runParams(body), abortSignal: tracked.signal });
      tracked.end(result.events.at(-1));
      // A store that failed mid-run could not store the run's error event either: a 200 with the
      // events it did store would hide the failure.
      if (result.status === 'failed' && isStoreFailure(result.error)) throw result.error;
      return c.json(result.events.map(encodeEvent));
    } catch (error) {
      throw toHttpError(error);
    } finally {
      tracked.end();
    }
  });

  routes.post('/run_sse', async (c) => {
    const body = await readBody(c, runBody);
    assertMayAccess(c.get('principal'), body.userId);
    const runner = await ctx.registry.runner(body.appName);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), c.req.raw.signal);
    return streamRun(tracked, () => runner.start({ ...runParams(body), abortSignal: tracked.signal }));
  });

  routes.post('/apps/:app/users/:user/sessions/:session/resume', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    const body = await readBody(c, resumeBody);
    const runner = await ctx.registry.runner(appName);
    const tracked = ctx.runs.begin(sessionKey(appName, userId, sessionId), c.req.raw.signal);
    return streamRun(
      tracked,
      () =>
        runner.startResume({
          userId,
          sessionId,
          responses: body.responses,
          ...(body.invocationId ? { invocationId: body.invocationId } : {}),
          runConfig: runConfigOf(body.streaming),
          abortSignal: tracked.signal,
        }),
    );
  });

  return routes;
}

function runParams(body: RunBody) {
  return {
    userId: body.userId,
    sessionId: body.sessionId,
    ...(body.newMessage ? { newMessage: body.newMessage } : {}),
    ...(body.input ? { input: body.input } : {}),
    ...(body.stateDelta ? { stateDelta: body.stateDelta } : {}),
    ...(body.invocationId ? { invocationId: body.invocationId } : {}),
    runConfig: runConfigOf(body.streaming),
  };
}

function runConfigOf(streaming: boolean | null | undefined): RunConfig {
  return { streaming: streaming ? 'sse' : 'none' };
}
