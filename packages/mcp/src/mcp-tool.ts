import { BaseTool, type FunctionDeclaration, type ToolContext } from '@troupe/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** A tool as an MCP server lists it: its name on the server, description and JSON Schemas. */
export type MCPToolInfo = Tool;

/** What an {@link MCPTool} calls through: its toolset, which holds the connection. */
export interface MCPToolCaller {
  callTool(serverName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/**
 * One tool of an MCP server, as an {@link MCPToolset} offers it to an agent. Its declaration is the
 * server's: the description and the `inputSchema` (JSON Schema) as listed, less its `$schema`
 * dialect marker; its name is the server's name with the toolset's prefix, made a valid tool name.
 */
export class MCPTool extends BaseTool {
  /** The tool as the server listed it (`info.name` is its name on the server). */
  readonly info: MCPToolInfo;
  private readonly caller: MCPToolCaller;

  /** @internal Made by {@link MCPToolset}. */
  constructor(caller: MCPToolCaller, info: MCPToolInfo, name: string) {
    super({ name, description: info.description ?? info.title ?? '' });
    this.info = info;
    this.caller = caller;
  }

  override async getDeclaration(): Promise<FunctionDeclaration> {
    // `$schema` names the dialect only; providers reject it in declarations (core drops it from zod schemas too).
    const { $schema: _dialect, ...parameters } = this.info.inputSchema;
    return { name: this.name, description: this.description, parameters };
  }

  /**
   * Calls the tool on the server with the model's arguments; the run's abort signal cancels the
   * request (the server is told). An error result or a failed call throws {@link MCPToolError}.
   */
  override async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<Record<string, unknown>> {
    return this.caller.callTool(this.info.name, args, ctx.abortSignal);
  }
}
