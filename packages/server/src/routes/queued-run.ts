import { Hono } from 'hono';
import type { Session } from '@troupe/core';
import { assertMayAccess } from '../auth.js';
import { clientGoneOf } from '../client-gone.js';
import { adkResumeOf, hasStateDelta, type AdkResume } from '../adk-resume.js';
import type { BackgroundRunParams, BackgroundRuns, BackgroundStreamEntry } from '../background-runs.js';
import { sessionNotFound, toHttpError } from '../http-error.js';
import { collectQueuedRun } from '../queued-run-collect.js';
import { queuedRunStream } from '../queued-run-stream.js';
import { readBody, resumeBody, type RunBody } from '../request-body.js';
import { afterResume } from '../resumed-run-entries.js';
import { assertNoOpenInterrupts, assertResumeAnswers, interruptedInvocation } from '../resume-guard.js';
import { runOfSession, type SessionPath } from '../run-access.js';
import { sessionKey, type TrackedRun } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { encodeEvent } from '../wire.js';
import { readRunRequest, reportFailures } from './run.js';

/**
 * `POST /run`, `POST /run_sse` and `POST /apps/{app}/users/{user}/sessions/{id}/resume` when runs
 * execute on workers (createApp's `queue`): each enqueues the run (or puts the paused one back
 * with its answers, given to the resume route or, by ADK clients, to `adk_request_confirmation`
 * or `adk_request_input` in `/run`) and follows its events, with the same bodies and answers as in process. The SSE
 * frames also carry `id:`, so a client can follow on with `GET .../runs/{runId}/stream`.
 */
export function queuedRunRoutes(ctx: ServerContext, queue: BackgroundRuns): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  /** Enqueues; a refusal (busy session, taken id, unknown session) is an HTTP error, nothing followed. */
  async function enqueue(
    body: RunBody,
    tracked: TrackedRun,
    readSession: () => Promise<Session | undefined>,
  ): Promise<string> {
    try {
      await assertNoOpenInterrupts(ctx.sessionService, body, readSession);
      return (await queue.enqueue(enqueueParams(body))).runId;
    } catch (error) {
      tracked.end();
      throw toHttpError(error);
    }
  }

  /**
   * Puts a paused run back on the queue with the ADK answers a `/run` body gives (to
   * `adk_request_confirmation`, `adk_request_input`, or a workflow's one request for input in
   * text), as the resume route does; the body's `stateDelta` is written first. Returns the run and which of
   * its frames come after the resume.
   */
  async function resumeForAdk(
    body: RunBody,
    resume: AdkResume,
    tracked: TrackedRun,
  ): Promise<{
    runId: string;
    select: (entries: AsyncIterable<BackgroundStreamEntry>) => AsyncIterable<BackgroundStreamEntry>;
  }> {
    try {
      const { appName, userId, sessionId } = body;
      const { runId } = await runOfSession(queue, resume.invocationId, { appName, userId, sessionId });
      // What the client has already seen: the stream of the resumed run starts with it.
      const before = resume.session.events.filter((event) => event.invocationId === runId);
      if (hasStateDelta(body))
        await (
          await ctx.registry.runner(appName)
        ).updateSessionState({ userId, sessionId, stateDelta: body.stateDelta });
      await queue.resume({
        runId,
        session: { appName, userId, sessionId },
        responses: resume.responses,
        ...(body.streaming ? { streaming: true } : {}),
      });
      return { runId, select: (entries) => afterResume(entries, before) };
    } catch (error) {
      tracked.end();
      throw toHttpError(error);
    }
  }

  routes.post('/run', async (c) => {
    const body = await readRunRequest(ctx, c);
    await ctx.registry.runner(body.appName);
    const readSession = readOnce(ctx, body);
    const resume = await adkResumeOf(ctx, body, { textAnswers: true, readSession });
    const session = sessionOf(body);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), clientGoneOf(c));
    if (resume) {
      const { runId, select } = await resumeForAdk(body, resume, tracked);
      return c.json(
        (await collectQueuedRun(queue, runId, session, tracked, reportFailures(ctx, c), select)).map(encodeEvent),
      );
    }
    const runId = await enqueue(body, tracked, readSession);
    return c.json((await collectQueuedRun(queue, runId, session, tracked, reportFailures(ctx, c))).map(encodeEvent));
  });

  routes.post('/run_sse', async (c) => {
    const body = await readRunRequest(ctx, c);
    await ctx.registry.runner(body.appName);
    const readSession = readOnce(ctx, body);
    const resume = await adkResumeOf(ctx, body, { textAnswers: true, readSession });
    const session = sessionOf(body);
    const tracked = ctx.runs.begin(sessionKey(body.appName, body.userId, body.sessionId), clientGoneOf(c));
    if (resume) {
      const { runId, select } = await resumeForAdk(body, resume, tracked);
      return queuedRunStream({ queue, runId, session, tracked, onFailure: reportFailures(ctx, c), select });
    }
    const runId = await enqueue(body, tracked, readSession);
    return queuedRunStream({ queue, runId, session, tracked, onFailure: reportFailures(ctx, c) });
  });

  routes.post('/apps/:app/users/:user/sessions/:session/resume', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    const body = await readBody(c, resumeBody);
    await ctx.registry.runner(appName);
    const key = { appName, userId, sessionId };
    await assertResumeAnswers(ctx.sessionService, key, body.responses, body.invocationId);
    const session = await ctx.sessionService.getSession(key);
    if (!session) throw sessionNotFound(key);
    const { runId } = await runOfSession(queue, body.invocationId ?? interruptedInvocation(session), key);
    // What the client has already seen: the stream of the resumed run starts with it.
    const before = session.events.filter((event) => event.invocationId === runId);
    const tracked = ctx.runs.begin(sessionKey(appName, userId, sessionId), clientGoneOf(c));
    try {
      await queue.resume({
        runId,
        session: key,
        responses: body.responses ?? {},
        ...(body.streaming ? { streaming: true } : {}),
      });
    } catch (error) {
      tracked.end();
      throw toHttpError(error);
    }
    return queuedRunStream({
      queue,
      runId,
      session: key,
      tracked,
      onFailure: reportFailures(ctx, c),
      select: (entries) => afterResume(entries, before),
    });
  });

  return routes;
}

function sessionOf(body: RunBody): SessionPath {
  return { appName: body.appName, userId: body.userId, sessionId: body.sessionId };
}

function enqueueParams(body: RunBody): BackgroundRunParams {
  return {
    appName: body.appName,
    userId: body.userId,
    sessionId: body.sessionId,
    ...(body.newMessage ? { newMessage: body.newMessage } : {}),
    ...(body.input ? { input: body.input } : {}),
    ...(body.stateDelta ? { stateDelta: body.stateDelta } : {}),
    ...(body.streaming ? { streaming: true } : {}),
    ...(body.invocationId ? { runId: body.invocationId } : {}),
    // As in process: a second turn on a busy session is refused (409), not queued behind it.
    multitaskStrategy: 'reject',
  };
}

/**
 * The body's session, read at most once per request: the checks before a run is queued (an answer
 * to a paused run? open interrupts?) share one read of the whole session (issue #34).
 */
function readOnce(ctx: ServerContext, body: RunBody): () => Promise<Session | undefined> {
  let read: Promise<Session | undefined> | undefined;
  return () => (read ??= ctx.sessionService.getSession(sessionOf(body)));
}
