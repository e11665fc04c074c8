import { ConfigurationError } from '../../errors.js';
import type { BaseTool } from '../../tools/base-tool.js';
import type { BaseToolset } from '../../tools/base-toolset.js';
import type { BaseAgent } from '../base-agent.js';
import type { InvocationContext } from '../invocation-context.js';
import { TransferTool, transferTargets, TRANSFER_TOOL_NAME, type TransferPolicy } from './transfer.js';

/** The tools an agent offers its model in a run, and the agents it may transfer to. */
export interface Toolbox {
  tools: ReadonlyMap<string, BaseTool>;
  targets: readonly BaseAgent[];
}

/** What an agent's toolbox reads of it. */
interface ToolboxOwner extends BaseAgent, TransferPolicy {
  readonly tools: readonly BaseTool[];
  readonly toolsets: readonly BaseToolset[];
}

/**
 * An LlmAgent's tools: its own (with the transfer tool when it has somewhere to transfer to), made
 * once for its place in the agent tree, and each run's, which add its toolsets' current tools and
 * the caller's client tools.
 */
export class AgentToolbox {
  private fixed: (Toolbox & { parent: BaseAgent | undefined }) | undefined;

  constructor(private readonly agent: ToolboxOwner) {}

  /** The tools of this run: the fixed ones, then each toolset's current tools, then the caller's client tools. */
  forRun(ctx: InvocationContext): Toolbox | Promise<Toolbox> {
    const fixed = this.fixedTools();
    const clientTools = ctx.shared.runConfig.clientTools;
    // Most agents have neither: their fixed toolbox, with no promise.
    if (this.agent.toolsets.length === 0 && clientTools.length === 0) return fixed;
    return this.withRunTools(fixed, clientTools, ctx);
  }

  private async withRunTools(
    fixed: Toolbox,
    clientTools: readonly BaseTool[],
    ctx: InvocationContext,
  ): Promise<Toolbox> {
    const tools = new Map(fixed.tools);
    for (const toolset of this.agent.toolsets) {
      for (const tool of await toolset.getTools(ctx)) {
        if (tools.has(tool.name)) {
          throw new ConfigurationError(
            `Agent '${this.agent.name}' gets two tools named '${tool.name}' (one from a toolset). Give the toolset a prefix or filter its tools.`,
          );
        }
        tools.set(tool.name, tool);
      }
    }
    // The caller cannot know every agent's tools, so a clash is not its mistake: the agent's own tool wins.
    for (const tool of clientTools) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    return { tools, targets: fixed.targets };
  }

  /** The tools offered to the model, with the transfer tool; rebuilt only when the tree around the agent changes. */
  private fixedTools(): Toolbox {
    const agent = this.agent;
    const parent = agent.parentAgent;
    if (this.fixed && this.fixed.parent === parent) return this.fixed;
    const tools = new Map<string, BaseTool>();
    for (const tool of agent.tools) tools.set(tool.name, tool);
    const targets = transferTargets(agent, agent);
    if (targets.length > 0) tools.set(TRANSFER_TOOL_NAME, new TransferTool(agent, targets));
    this.fixed = { parent, tools, targets };
    return this.fixed;
  }
}
