import { type Context, Hono } from 'hono';
import type { RunConfig, Runner } from '@troupe/core';
import { adkResumeOf, hasStateDelta } from '../adk-resume.js';
import { assertMayAccess } from '../auth.js';
import { clientGoneOf } from '../client-gone.js';
import { toHttpError } from '../http-error.js';
import { readBody, resumeBody, runBody, type RunBody } from '../request-body.js';
import { assertResumeAnswers } from '../resume-guard.js';
import { collectRun } from '../run-collect.js';
import { type RunEvents, type RunFailureListener, streamRun } from '../run-stream.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { checkStateWrite } from '../state-policy.js';
import { encodeEvent } from '../wire.js';

/**
 * `POST /run` (the run's events as one JSON array), `POST /run_sse` (server-sent events) and
 * `POST /apps/{app}/users/{user}/sessions/{id}/resume` (the rest of a paused run, as SSE).
 */
export function runRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  const runRequest = (c: Context<ServerEnv>) => readRunRequest(ctx, c);
  const failureReporter = (c: Context<ServerEnv>) => reportFailures(ctx, c);

  routes.post('/run', async (c) => {
    const body = await runRequest(c);
    const runner = await ctx.registry.runner(body.appName);
    const start = await runStart(ctx, runner, body);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), clientGoneOf(c));
    try {
      // Misuse (unknown or busy session, open interrupts) rejects here, before anything is stored.
      const events = await start(tracked.signal);
      const session = { appName: body.appName, userId: body.userId, sessionId: body.sessionId };
      return c.json((await collectRun(tracked, events, failureReporter(c), session)).map(encodeEvent));
    } catch (error) {
      throw toHttpError(error);
    } finally {
      tracked.end();
    }
  });

  routes.post('/run_sse', async (c) => {
    const body = await runRequest(c);
    const runner = await ctx.registry.runner(body.appName);
    const start = await runStart(ctx, runner, body);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), clientGoneOf(c));
    return streamRun(tracked, () => start(tracked.signal), failureReporter(c));
  });

  routes.post('/apps/:app/users/:user/sessions/:session/resume', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    const body = await readBody(c, resumeBody);
    const runner = await ctx.registry.runner(appName);
    await assertResumeAnswers(ctx.sessionService, { appName, userId, sessionId }, body.responses, body.invocationId);
    const tracked = ctx.runs.begin(sessionKey(appName, userId, sessionId), clientGoneOf(c));
    return streamRun(
      tracked,
      () =>
        runner.startResume({
          userId,
          sessionId,
          ...(body.responses ? { responses: body.responses } : {}),
          ...(body.invocationId ? { invocationId: body.invocationId } : {}),
          runConfig: runConfigOf(body.streaming),
          abortSignal: tracked.signal,
        }),
      failureReporter(c),
    );
  });

  return routes;
}

/** A run's body (`/run`, `/run_sse`), once the principal may run on its user's session and write its stateDelta. */
export async function readRunRequest(ctx: ServerContext, c: Context<ServerEnv>): Promise<RunBody> {
  const body = await readBody(c, runBody);
  const principal = c.get('principal');
  assertMayAccess(principal, body.userId);
  if (body.stateDelta) checkStateWrite('stateDelta', body.stateDelta, principal, ctx.stateLimits);
  return body;
}

/**
 * How a `/run` or `/run_sse` body starts: a new turn, or, when its message answers ADK's
 * `adk_request_confirmation` or `adk_request_input` calls, the resume of the paused run they belong
 * to, as the resume route would for the same user (the body's `stateDelta` is written first, with
 * ADK's meaning: state sent with the message). Bad answers are refused here, before anything is
 * stored. A text message that answers a workflow's one open request for input goes to the runner
 * as it is (it resumes the run and stores the text); only with a stateDelta does the server look
 * first, to write that state before.
 */
async function runStart(
  ctx: ServerContext,
  runner: Runner,
  body: RunBody,
): Promise<(signal: AbortSignal) => Promise<RunEvents>> {
  const resume = await adkResumeOf(ctx, body, { textAnswers: hasStateDelta(body) });
  if (!resume) return (signal) => runner.start({ ...runParams(body), abortSignal: signal });
  const { userId, sessionId } = body;
  return async (signal) => {
    if (hasStateDelta(body)) await runner.updateSessionState({ userId, sessionId, stateDelta: body.stateDelta });
    if (resume.text) return runner.start({ ...runParams({ ...body, stateDelta: null }), abortSignal: signal });
    return runner.startResume({
      userId,
      sessionId,
      invocationId: resume.invocationId,
      responses: resume.responses,
      runConfig: runConfigOf(body.streaming),
      abortSignal: signal,
    });
  };
}

/** Tells onError, with the request's id, of a run failure the runner did not report itself. */
export function reportFailures(ctx: ServerContext, c: Context<ServerEnv>): RunFailureListener {
  return (error) => ctx.onError?.(error, c.req.raw, { requestId: c.get('requestId'), level: 'error' });
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
