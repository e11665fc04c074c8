/**
 * Troupe MCP tools: {@link MCPToolset} offers the tools of a Model Context Protocol server (a
 * command started over stdio, or a Streamable HTTP URL) to Troupe agents; {@link mcpServer} serves
 * Troupe apps as an MCP server. Importing this module also registers `mcp:` entries for the
 * `tools:` of YAML/JSON agent definitions (the troupe CLI imports it).
 * @packageDocumentation
 */
import { registerToolEntry } from '@troupe/core';
import { mcpToolEntry } from './tool-entry.js';

registerToolEntry('mcp', mcpToolEntry);

export { MCPToolset, type MCPToolsetOptions } from './mcp-toolset.js';
export { MCPTool, type MCPToolInfo } from './mcp-tool.js';
export type { MCPConnection, MCPStdioConnection, MCPHttpConnection } from './connection.js';
export { MCPConnectionError, MCPToolError } from './errors.js';
export type { MCPStderrLine } from './stderr-lines.js';
export { mcpToolEntry, createMcpToolEntry, type MCPToolEntryDefaults } from './tool-entry.js';
export {
  mcpServer,
  MCP_USER,
  RESUME_TOOL,
  type McpAppSource,
  type McpRunTracker,
  type McpServerHandle,
  type McpServerOptions,
  type McpTrackedRun,
} from './server/index.js';
