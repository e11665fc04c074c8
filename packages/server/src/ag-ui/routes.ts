import { Hono } from 'hono';
import { openInterrupts, type RunConfig } from '@troupe/core';
import { toHttpError } from '../http-error.js';
import { reportFailures } from '../routes/run.js';
import type { RunEvents } from '../run-stream.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { checkStateWrite } from '../state-policy.js';
import { capabilitiesOf } from './capabilities.js';
import { clientToolsOf } from './client-tools.js';
import { agUiEvents, agUiResponse } from './event-stream.js';
import { EventTranslator } from './event-translator.js';
import { readRunInput } from './run-input.js';
import { stateDeltaOf, visibleState } from './state-input.js';
import { threadSession, threadUser } from './thread.js';
import { planTurn } from './turn-plan.js';

/**
 * AG-UI (1.0) for every app: `POST /ag-ui/{app}` takes a `RunAgentInput` and streams the run as
 * AG-UI events (SSE); `GET /ag-ui/{app}/capabilities` says what the app supports. The thread is a
 * session of the token's user, created on first use; the run id is the invocation id. A run that
 * pauses for a person ends with the interrupt outcome, and the next input's `resume` continues the
 * same invocation; so do the tool messages that answer the client's own (frontend) tool calls.
 * Auth, host and origin checks, body limits and the state policy are the other routes'.
 */
export function agUiRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.get('/ag-ui/:app/capabilities', async (c) => {
    const appName = c.req.param('app');
    const runner = await ctx.registry.runner(appName);
    return c.json(await capabilitiesOf(appName, runner.agent));
  });

  routes.post('/ag-ui/:app', async (c) => {
    const appName = c.req.param('app');
    const input = await readRunInput(c);
    const principal = c.get('principal');
    const userId = threadUser(principal, input.forwardedProps);
    const runner = await ctx.registry.runner(appName);
    const key = { appName, userId, sessionId: input.threadId };
    const session = await threadSession(ctx.sessionService, key);
    const plan = planTurn(input, session);
    const stateDelta = plan.kind === 'run' ? stateDeltaOf(input.state, session.state) : undefined;
    if (stateDelta) checkStateWrite('state', stateDelta, principal, ctx.stateLimits);
    const runConfig: RunConfig = {
      streaming: 'sse',
      clientTools: clientToolsOf(input.tools, openInterrupts(session.events)),
      ...(plan.kind === 'run' && plan.abandonInterrupts ? { abandonInterrupts: true } : {}),
    };

    const tracked = ctx.runs.begin(sessionKey(appName, userId, input.threadId), c.req.raw.signal);
    let events: RunEvents | undefined;
    let translator: EventTranslator;
    try {
      // Misuse (a busy session, a retried run id, answers that do not fit) is refused here, before a byte is sent.
      events =
        plan.kind === 'run'
          ? await runner.start({ userId, sessionId: input.threadId, newMessage: plan.newMessage, invocationId: input.runId, runConfig, abortSignal: tracked.signal, ...(stateDelta ? { stateDelta } : {}) })
          : await runner.startResume({ userId, sessionId: input.threadId, invocationId: plan.invocationId, responses: plan.responses, runConfig, abortSignal: tracked.signal });
      // Read once the run holds the session: the state it starts from, which nothing else changes now.
      const started = await ctx.sessionService.getSession({ ...key, numRecentEvents: 0 });
      translator = new EventTranslator({
        threadId: input.threadId,
        runId: input.runId,
        invocationId: plan.kind === 'run' ? input.runId : plan.invocationId,
        userId,
        state: visibleState({ ...started?.state, ...stateDelta }),
        clientCalls: plan.kind === 'resume' ? plan.clientCalls : new Set(),
      });
    } catch (error) {
      // Returning a run that has not started gives its session back.
      await events?.return(undefined as never).catch(() => undefined);
      tracked.end();
      throw toHttpError(error);
    }
    const onFailure = reportFailures(ctx, c);
    return agUiResponse(tracked, agUiEvents(events, translator, onFailure), translator, onFailure);
  });

  return routes;
}
