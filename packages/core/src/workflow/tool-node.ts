import { createEvent } from '../events/event.js';
import { ToolInterrupt } from '../interrupts/signals.js';
import type { BaseTool } from '../tools/base-tool.js';
import { ToolContext } from '../tools/tool-context.js';
import { BaseNode, type BaseNodeConfig, type NodeYield } from './base-node.js';
import type { NodeContext } from './node-context.js';

/**
 * A tool as a workflow node: its input is the tool's arguments (an object; any other value is
 * passed as `{ input: value }`) and its output the tool's result. A tool that asks for approval or
 * input pauses the workflow; on resume it runs again with the answer.
 */
export class ToolNode extends BaseNode {
  constructor(
    readonly tool: BaseTool,
    config: Partial<BaseNodeConfig> = {},
  ) {
    super({ description: tool.description, ...config, name: config.name ?? tool.name });
  }

  protected async *runImpl(ctx: NodeContext, input: unknown): AsyncGenerator<NodeYield, void, undefined> {
    const args =
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : input === undefined
          ? {}
          : { input };
    const host = ctx.host;
    const callId = `${host.path}@${host.runId}`;
    const toolCtx = new ToolContext(ctx.invocationContext, callId, (event) => host.emit(event), host.resumeFrom);
    let result: unknown;
    try {
      result = await this.tool.runAsync(args, toolCtx);
    } catch (error) {
      if (!(error instanceof ToolInterrupt)) throw error;
      ctx.state.update(toolCtx.state.delta);
      await ctx.emit(
        createEvent({
          interrupt: {
            ...error.request,
            agentPath: ctx.invocationContext.path,
            toolCallId: callId,
            toolName: this.tool.name,
            args,
          },
        }),
      );
      return;
    }
    ctx.state.update(toolCtx.state.delta);
    yield result;
  }
}
