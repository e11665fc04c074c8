import { Hono } from 'hono';
import type { McpServerHandle } from '@troupe/mcp/server';
import type { AuthOptions } from '../auth.js';
import { sessionKey } from '../run-tracker.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import type { JsonLimits } from '../json-limits.js';

/** What the MCP endpoint takes from createApp's options. */
export interface McpRouteOptions {
  auth: AuthOptions | undefined;
  bodyLimit: number;
  jsonLimits: Required<JsonLimits>;
}

/**
 * `/mcp` (POST, GET, DELETE): the apps as an MCP server over Streamable HTTP (`createApp({ mcp:
 * true })`), each app a tool, with the app's auth per user (the bearer token's; an admin token and
 * no auth act as `'mcp'`). Its runs execute in this process (with a queue too: they answer the
 * client that asked) and are tracked with the others, so a shutdown cancels them and a running
 * session cannot be deleted. `@troupe/mcp` is loaded on the first MCP request.
 */
export function mcpRoutes(ctx: ServerContext, options: McpRouteOptions): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  let handle: Promise<McpServerHandle> | undefined;
  const mcp = (): Promise<McpServerHandle> => {
    if (!handle) {
      const made = import('@troupe/mcp/server').then(({ mcpServer }) =>
        mcpServer({
          apps: ctx.registry,
          ...(options.auth ? { auth: options.auth } : {}),
          bodyLimit: options.bodyLimit,
          jsonLimits: options.jsonLimits,
          runTracker: { begin: (s) => ctx.runs.begin(sessionKey(s.appName, s.userId, s.sessionId), undefined) },
        }),
      );
      handle = made;
      // A failed load is tried again on the next request.
      void made.catch(() => {
        if (handle === made) handle = undefined;
      });
    }
    return handle;
  };
  routes.all('/mcp', async (c) => (await mcp()).handleRequest(c.req.raw));
  return routes;
}
