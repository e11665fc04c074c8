import { AgentTool, type AgentKind, type BaseAgent, type BaseTool } from '@troupe/core';

export type { AgentKind } from '@troupe/core';

/** One agent of `GET /apps/{app}/graph`. */
export interface AgentGraphNode {
  name: string;
  /** The agent's {@link BaseAgent.kind}: named as in agent definition files (`type:`), `custom` for a subclass that names none. */
  type: AgentKind;
  /** The agent's class, e.g. `LlmAgent` or a custom subclass's name. */
  class: string;
  description: string;
  /** The model the agent names itself (inherited models are not repeated). */
  model?: string;
  children: AgentGraphNode[];
  tools: AgentGraphTool[];
}

/** One tool of an agent in the graph. An AgentTool carries the agent it wraps. */
export interface AgentGraphTool {
  name: string;
  description: string;
  class: string;
  agent?: AgentGraphNode;
}

/**
 * The agent tree as plain JSON: names, kinds, descriptions, sub-agents and tools, for a UI to draw.
 * Each agent describes itself ({@link BaseAgent.kind} and {@link BaseAgent.outline}), so a new kind
 * of agent shows with its own kind, children and tools.
 */
export function agentGraph(agent: BaseAgent, seen: Set<BaseAgent> = new Set()): AgentGraphNode {
  seen.add(agent);
  const outline = agent.outline();
  const node: AgentGraphNode = {
    name: agent.name,
    type: agent.kind,
    class: agent.constructor.name,
    description: agent.description,
    children: outline.children.map((child) => agentGraph(child, seen)),
    tools: outline.tools.map((tool) => toolNode(tool, seen)),
  };
  if (outline.model !== undefined) node.model = outline.model;
  return node;
}

function toolNode(tool: BaseTool, seen: Set<BaseAgent>): AgentGraphTool {
  const node: AgentGraphTool = { name: tool.name, description: tool.description, class: tool.constructor.name };
  // An AgentTool wrapping one of its own ancestors would otherwise recurse forever.
  if (tool instanceof AgentTool && !seen.has(tool.agent)) node.agent = agentGraph(tool.agent, seen);
  return node;
}
