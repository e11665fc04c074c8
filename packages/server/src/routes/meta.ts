import { Hono } from 'hono';
import { agentGraph } from '../graph.js';
import type { ServerContext, ServerEnv } from '../server-context.js';

/** `GET /list-apps` (the app names, a bare array) and `GET /apps/{app}/graph` (the agent tree). */
export function metaRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/list-apps', async (c) => c.json(await ctx.registry.names()));
  routes.get('/apps/:app/graph', async (c) => {
    const runner = await ctx.registry.runner(c.req.param('app'));
    return c.json(agentGraph(runner.agent));
  });
  return routes;
}
