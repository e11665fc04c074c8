import {
  AgentTool,
  type BaseAgent,
  type BaseTool,
  FunctionAgent,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RoutedAgent,
  SequentialAgent,
  TeamAgent,
} from '@troupe/core';

/** The kinds of agent, named as in agent definition files (`type:`); `custom` for other BaseAgent subclasses. */
export type AgentKind = 'llm' | 'sequential' | 'parallel' | 'loop' | 'team' | 'routed' | 'function' | 'custom';

/** One agent of `GET /apps/{app}/graph`. */
export interface AgentGraphNode {
  name: string;
  type: AgentKind;
  /** The agent's class, e.g. `LlmAgent` or a custom subclass's name. */
  class: string;
  description: string;
  /** The model an LlmAgent names itself (inherited models are not repeated). */
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

/** The agent tree as plain JSON: names, kinds, descriptions, sub-agents and tools, for a UI to draw. */
export function agentGraph(agent: BaseAgent, seen: Set<BaseAgent> = new Set()): AgentGraphNode {
  seen.add(agent);
  const node: AgentGraphNode = {
    name: agent.name,
    type: kindOf(agent),
    class: agent.constructor.name,
    description: agent.description,
    children: agent.subAgents.map((child) => agentGraph(child, seen)),
    tools: agent instanceof LlmAgent ? agent.tools.map((tool) => toolNode(tool, seen)) : [],
  };
  if (agent instanceof LlmAgent && agent.model !== undefined) node.model = typeof agent.model === 'string' ? agent.model : agent.model.model;
  return node;
}

function toolNode(tool: BaseTool, seen: Set<BaseAgent>): AgentGraphTool {
  const node: AgentGraphTool = { name: tool.name, description: tool.description, class: tool.constructor.name };
  // An AgentTool wrapping one of its own ancestors would otherwise recurse forever.
  if (tool instanceof AgentTool && !seen.has(tool.agent)) node.agent = agentGraph(tool.agent, seen);
  return node;
}

function kindOf(agent: BaseAgent): AgentKind {
  if (agent instanceof LlmAgent) return 'llm';
  if (agent instanceof SequentialAgent) return 'sequential';
  if (agent instanceof ParallelAgent) return 'parallel';
  if (agent instanceof LoopAgent) return 'loop';
  if (agent instanceof TeamAgent) return 'team';
  if (agent instanceof RoutedAgent) return 'routed';
  if (agent instanceof FunctionAgent) return 'function';
  return 'custom';
}
