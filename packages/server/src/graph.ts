import {
  AgentNode,
  AgentTool,
  FunctionNode,
  isWorkflow,
  ToolNode,
  type AgentKind,
  type BaseAgent,
  type BaseNode,
  type BaseTool,
  type WorkflowGraph,
} from '@troupe/core';

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
  /**
   * A graph workflow's nodes and edges (a `Workflow` built from `edges`). Its agent nodes' agents
   * are also its `children`. Absent for other agents and for a `dynamicEntry` workflow, which has
   * no graph.
   */
  workflow?: WorkflowOutline;
}

/** A graph workflow's nodes and edges, in the order they were declared. */
export interface WorkflowOutline {
  nodes: WorkflowOutlineNode[];
  /** Edges from the workflow's entry have `from: 'START'`. */
  edges: WorkflowOutlineEdge[];
}

/** One node of a graph workflow. */
export interface WorkflowOutlineNode {
  /** Its name in the workflow, the last part of its events' `nodeInfo.path`. */
  name: string;
  /** `function` (FunctionNode), `agent` (an agent as a node), `tool` (ToolNode), `join` (a barrier, JoinNode), `node` (another BaseNode subclass). */
  kind: WorkflowNodeKind;
  /** For an agent node: the agent it runs (one of the workflow's `children`). */
  agent?: string;
  /** Runs once per item of an array input. */
  parallelWorker?: true;
  description: string;
}

/** What a workflow node is; see {@link WorkflowOutlineNode.kind}. */
export type WorkflowNodeKind = 'function' | 'agent' | 'tool' | 'join' | 'node';

/** One edge of a graph workflow. */
export interface WorkflowOutlineEdge {
  from: string;
  to: string;
  /** The routes it fires on; absent for an unconditional edge and for the DEFAULT_ROUTE edge. */
  routes?: string[];
  /** The DEFAULT_ROUTE edge: taken when none of the source's routed edges matched. */
  default?: true;
  /** Followed at most this many times per workflow run. */
  maxIterations?: number;
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
  if (isWorkflow(agent) && agent.graph) node.workflow = workflowOutline(agent.graph);
  return node;
}

/** A workflow graph as plain JSON: its nodes with their kinds, and its edges with their routes. */
export function workflowOutline(graph: WorkflowGraph): WorkflowOutline {
  const nodes = [...graph.nodes.values()].map(outlineNode);
  const edges = graph.edges.map((edge) => {
    const out: WorkflowOutlineEdge = { from: edge.from, to: edge.to };
    if (edge.isDefault) out.default = true;
    else if (edge.routes !== undefined) out.routes = [...edge.routes];
    if (edge.maxIterations !== undefined) out.maxIterations = edge.maxIterations;
    return out;
  });
  return { nodes, edges };
}

function outlineNode(node: BaseNode): WorkflowOutlineNode {
  const out: WorkflowOutlineNode = { name: node.name, kind: nodeKind(node), description: node.description };
  if (node instanceof AgentNode) out.agent = node.agent.name;
  if (node.parallelWorker) out.parallelWorker = true;
  return out;
}

function nodeKind(node: BaseNode): WorkflowNodeKind {
  if (node instanceof AgentNode) return 'agent';
  if (node instanceof ToolNode) return 'tool';
  if (node instanceof FunctionNode) return 'function';
  if (node.requiresAllPredecessors) return 'join';
  return 'node';
}

function toolNode(tool: BaseTool, seen: Set<BaseAgent>): AgentGraphTool {
  const node: AgentGraphTool = { name: tool.name, description: tool.description, class: tool.constructor.name };
  // An AgentTool wrapping one of its own ancestors would otherwise recurse forever.
  if (tool instanceof AgentTool && !seen.has(tool.agent)) node.agent = agentGraph(tool.agent, seen);
  return node;
}
