import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import type { BaseAgent } from '@troupe/core';
import { Hono } from 'hono';
import { type A2aAppOptions, resolveOptions } from './a2a-app-options.js';
import { agentCardOf } from './agent-card.js';
import { A2aAuthenticator } from './auth.js';
import { cardJson, legacyCardJson } from './card-json.js';
import { jsonRpcRoute } from './json-rpc-route.js';
import { LiveTasks } from './live-tasks.js';
import { TroupeRequestHandler } from './request-handler.js';

/** The Hono app {@link a2aApp} returns: mount it, or serve it as it is. */
export type A2aApp = Hono & {
  /**
   * Stops taking new tasks, lets running ones finish for `gracePeriodMs`, then cancels the rest
   * (each stores its cancellation). Call it when the server stops.
   */
  shutdown(options?: { gracePeriodMs?: number }): Promise<void>;
};

/**
 * Serves an agent tree over A2A: JSON-RPC at `/` (A2A 1.0 `SendMessage`, `SendStreamingMessage`,
 * `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`, and their 0.3 names `message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe` for ADK JS and other 0.3
 * peers) and the agent card at `/.well-known/agent-card.json`. Mount it anywhere, e.g. in the app
 * `createApp` of `@troupe/server` returns; `baseUrl` must be where it ends up.
 *
 * A task is one invocation of the runner (task id = invocation id) in a session (context id =
 * session id, per user); a tool waiting for a person makes the task `input-required`, and the
 * client's next message on the task answers it; `tasks/cancel` stores the run's cancellation.
 * Everything is read back from the session store, so tasks survive a restart on a persistent store.
 *
 * @example
 * const sessionService = new SqliteSessionService({ path: 'troupe.db' });
 * const api = createApp({ apps: { travel }, sessionService });
 * api.route('/a2a/travel', a2aApp(travel, { baseUrl: 'http://127.0.0.1:8000/a2a/travel', sessionService }));
 * await serve(api, { port: 8000 });
 */
export function a2aApp(rootAgent: BaseAgent, options: A2aAppOptions): A2aApp {
  const resolved = resolveOptions(rootAgent, options);
  const card = agentCardOf(rootAgent, resolved);
  const live = new LiveTasks();
  const handler = new TroupeRequestHandler({ rootAgent, runner: resolved.runner, live, options: resolved }, card);
  const auth = new A2aAuthenticator(resolved.auth, resolved.defaultUserId);

  const app = new Hono();
  app.get('/.well-known/agent-card.json', (c) => {
    // A2A 0.3 clients send no version header (the spec's default is 0.3); 1.0 clients send '1.0'.
    const version = c.req.header(A2A_VERSION_HEADER) ?? '';
    const legacy = version === '' || version.startsWith('0.');
    c.header('Vary', A2A_VERSION_HEADER);
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(legacy ? legacyCardJson(card) : cardJson(card));
  });
  app.post('/', jsonRpcRoute(handler, auth, card, resolved.limits));
  app.get('/', (c) =>
    c.json(
      {
        error: `This is the A2A JSON-RPC endpoint of ${rootAgent.name}: POST JSON-RPC requests here. The agent card is at ${resolved.baseUrl}/.well-known/agent-card.json.`,
      },
      405,
      { Allow: 'POST' },
    ),
  );
  return Object.assign(app, {
    shutdown: (opts?: { gracePeriodMs?: number }) => live.shutdown(opts?.gracePeriodMs ?? 10_000),
  });
}
