import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { HttpSessions } from './http-sessions.js';
import { type McpServerOptions, resolveOptions } from './mcp-server-options.js';
import { protocolServer } from './protocol-server.js';

/** How long `close()` lets the runs it cancelled store their cancellation. */
const CLOSE_WAIT_MS = 10_000;

/** What {@link mcpServer} returns: the server for any transport, a web-standard HTTP handler, and `close`. */
export interface McpServerHandle {
  /**
   * The SDK's `McpServer` of the apps, for one transport of your choice (`server.connect(new
   * StdioServerTransport())`): its calls act as `defaultUserId`. Its `tools/list` and `tools/call`
   * are the apps' and `resume`; tools of your own cannot be registered beside them.
   */
  readonly server: McpServer;
  /**
   * Serves MCP's Streamable HTTP transport on web-standard `Request`/`Response` (mount it at `/mcp`
   * of any server: Hono, Next.js, Deno, Bun, Cloudflare Workers): POST, GET and DELETE, each client
   * in a session of its own, per user with `auth`.
   */
  handleRequest(request: Request): Promise<Response>;
  /**
   * Cancels the runs in flight (each stores its cancellation; they get 10 s to), then ends every
   * HTTP session and `server`'s connection.
   */
  close(): Promise<void>;
}

/**
 * Serves Troupe apps as an MCP server: each app is a tool (named after the app, described by its
 * root agent, taking `{ message, sessionId? }` or the root agent's `inputSchema` plus `sessionId`)
 * that runs one turn and returns the final text (and `structuredContent` for an agent with an
 * `outputSchema`), with `_meta.sessionId` to continue the session on the next call. Progress goes
 * out as `notifications/progress` when the client sent a progress token; a run that waits for a
 * person is asked as an elicitation when the client takes them (or returned pending, for the
 * `resume` tool); a client's cancel cancels the run.
 *
 * @example
 * // stdio (an MCP host starts this process):
 * const { server } = mcpServer({ apps: { travel }, sessionService: new SqliteSessionService({ path: 'troupe.db' }) });
 * await server.connect(new StdioServerTransport());
 *
 * // Streamable HTTP, per user:
 * const mcp = mcpServer({ agent: travel, auth: { tokens: { 'alice-secret': 'alice' } } });
 * app.all('/mcp', (c) => mcp.handleRequest(c.req.raw));
 */
export function mcpServer(options: McpServerOptions): McpServerHandle {
  const resolved = resolveOptions(options);
  const server = protocolServer(resolved, resolved.defaultUserId);
  const http = new HttpSessions(resolved);
  let closed: Promise<void> | undefined;
  return {
    server,
    handleRequest: (request) => http.handle(request),
    close() {
      closed ??= (async () => {
        await resolved.runTracker.close(CLOSE_WAIT_MS);
        await http.close();
        await server.close();
      })();
      return closed;
    },
  };
}
