import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppSource } from './app-source.js';
import { appTool, failedAppTool } from './app-tool.js';
import type { ResolvedMcpOptions } from './mcp-server-options.js';
import { guardRequests } from './request-guard.js';
import { resumeTool } from './resume-tool.js';
import { callTool } from './tool-calls.js';

/** What a model reads about the server in hosts that show it (the handshake's `instructions`). */
const INSTRUCTIONS =
  "Each tool but 'resume' runs one turn of a Troupe app. A result's _meta.sessionId names its session: pass it as sessionId to continue the conversation. A run that waits for a person (an approval, an input) is asked as an elicitation when the client supports it; otherwise the result holds structuredContent.interrupt, answered with the 'resume' tool.";

/**
 * An SDK `McpServer` for one connection (one client): `tools/list` lists an app tool per app and
 * `resume`, `tools/call` runs them as `userId`. The tool handlers are set on the underlying
 * `Server`, because the apps (and so the tools and their JSON Schemas) are read when listed, not
 * registered up front.
 */
export function protocolServer(
  options: ResolvedMcpOptions,
  userId: string,
  calls: CallCount = { active: 0 },
): McpServer {
  const mcp = new McpServer({ name: options.name, version: options.version }, { instructions: INSTRUCTIONS });
  const server = mcp.server;
  guardRequests(server);
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...(await appTools(options.apps)), resumeTool],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    calls.active++;
    try {
      return await callTool(
        options,
        { userId, canElicit: server.getClientCapabilities()?.elicitation?.form !== undefined },
        request.params.name,
        request.params.arguments,
        extra,
      );
    } finally {
      calls.active--;
    }
  });
  return mcp;
}

/** The tool calls of one connection in progress: a connection with none may be closed to make room. */
export interface CallCount {
  active: number;
}

/** A tool per app; one that fails to load is listed with the reason as its description. */
async function appTools(apps: AppSource): Promise<Tool[]> {
  return Promise.all(
    (await apps.names()).map(async (name) => {
      try {
        return appTool(name, await apps.runner(name));
      } catch (error) {
        return failedAppTool(name, error);
      }
    }),
  );
}
