import { Hono } from 'hono';
import { clientGoneOf } from '../client-gone.js';
import { reportFailures } from '../routes/run.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { capabilitiesOf } from './capabilities.js';
import { agUiEvents, agUiResponse } from './event-stream.js';
import { readRunInput } from './run-input.js';
import { startRun, type StartedRun } from './start-run.js';
import { threadSession, threadUser } from './thread.js';

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
    // Created before the input is judged, so that it is judged against the state a new thread has
    // (the user's and the app's keys).
    const thread = await threadSession(ctx.sessionService, key);
    let started: StartedRun;
    try {
      started = await startRun(ctx, runner, thread.session, input, principal, clientGoneOf(c));
    } catch (error) {
      // A refused request stores nothing, not even the thread it made.
      if (thread.created) await ctx.sessionService.deleteSession(key).catch(() => undefined);
      throw error;
    }
    const { tracked, events, translator } = started;
    const onFailure = reportFailures(ctx, c);
    return agUiResponse(tracked, agUiEvents(events, translator, onFailure), translator, onFailure);
  });

  return routes;
}
