/**
 * Troupe apps served as an MCP server (`@troupe/mcp/server`, also exported by `@troupe/mcp`):
 * {@link mcpServer} gives the SDK's `McpServer` for stdio or any transport, and a Streamable HTTP
 * handler on web-standard Request/Response. This entry registers nothing (the root one registers
 * the `mcp:` tool entries of agent definitions), so a host can load it alone.
 * @packageDocumentation
 */
export { mcpServer, type McpServerHandle } from './mcp-server.js';
export { MCP_USER, type McpServerOptions } from './mcp-server-options.js';
export type { McpAppSource } from './app-source.js';
export type { McpRunTracker, McpTrackedRun } from './run-tracker.js';
export { RESUME_TOOL } from './resume-tool.js';
