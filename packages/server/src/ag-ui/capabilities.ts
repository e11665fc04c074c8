import type { AgentCapabilities, SubagentInfo, Tool } from '@ag-ui/core';
import { AgentTool, type BaseAgent } from '@troupe/core';

/**
 * What `GET /ag-ui/{app}/capabilities` declares (AG-UI's `AgentCapabilities`): streaming over SSE,
 * state snapshots and JSON Patch deltas kept with the thread, tool calls (the root agent's own,
 * several at once, and the client's frontend tools), structured output, reasoning, multi-agent
 * delegation (sub-agents, AgentTools) and hand-offs (transfers), and human-in-the-loop interrupts
 * (approvals and input requests, answered through `resume`).
 */
export async function capabilitiesOf(appName: string, root: BaseAgent): Promise<AgentCapabilities> {
  // A tool without a declaration (preloadMemoryTool) only edits requests: the model never calls it.
  // The root describes its own tools and children (BaseAgent.outline), whatever kind of agent it is.
  const outline = root.outline();
  const declarations = await Promise.all(outline.tools.map((tool) => tool.getDeclaration()));
  const tools = declarations.flatMap((declaration): Tool[] => (declaration ? [declared(declaration)] : []));
  const delegates: BaseAgent[] = [...outline.children];
  for (const tool of outline.tools) if (tool instanceof AgentTool) delegates.push(tool.agent);
  return {
    identity: { name: appName, type: 'troupe', ...(root.description ? { description: root.description } : {}) },
    transport: { streaming: true },
    tools: { supported: true, items: tools, parallelCalls: true, clientProvided: true },
    output: { structuredOutput: true },
    state: { snapshots: true, deltas: true, persistentState: true },
    multiAgent: { supported: true, delegation: true, handoffs: true, subagents: delegates.map(subagentInfo) },
    reasoning: { supported: true, streaming: true },
    humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: false },
  };
}

function declared(declaration: { name: string; description: string; parameters?: Record<string, unknown> }): Tool {
  return {
    name: declaration.name,
    description: declaration.description,
    ...(declaration.parameters ? { parameters: declaration.parameters } : {}),
  };
}

function subagentInfo(agent: BaseAgent): SubagentInfo {
  return { name: agent.name, ...(agent.description ? { description: agent.description } : {}) };
}
