import { FunctionTool } from './function-tool.js';

/**
 * Built-in tool that ends the nearest enclosing LoopAgent: it sets `escalate` (and skips
 * summarisation, so the agent makes no further model call).
 */
export const exitLoop = new FunctionTool({
  name: 'exit_loop',
  description: 'Exits the loop. Call this function only when you are instructed to do so.',
  execute: (_args, ctx) => {
    ctx.actions.escalate = true;
    ctx.actions.skipSummarization = true;
    return {};
  },
});
