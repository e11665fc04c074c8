import { type BaseAgent, BasePlugin, type CallbackContext, type LlmRequest } from '@troupe/core';
import type { RunActivity } from './spinner.js';

/**
 * Tells a spinner what the run is doing: which agent runs, which model it waits for, which tool
 * it calls. It only watches: every hook returns nothing, so the run is unchanged.
 */
export class ProgressPlugin extends BasePlugin {
  constructor(private readonly report: (activity: RunActivity) => void) {
    super('troupe-cli-progress');
  }

  override beforeAgent({ agent }: { agent: BaseAgent }): undefined {
    this.report({ agent: agent.name });
    return undefined;
  }

  override beforeModel({ context, request }: { context: CallbackContext; request: LlmRequest }): undefined {
    this.report({ agent: context.agentName, model: request.model });
    return undefined;
  }

  override beforeTool({ tool, context }: { tool: { name: string }; context: CallbackContext }): undefined {
    this.report({ agent: context.agentName, tool: tool.name });
    return undefined;
  }

  override afterTool({ context }: { context: CallbackContext }): undefined {
    this.report({ agent: context.agentName });
    return undefined;
  }
}
