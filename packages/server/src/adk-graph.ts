import { DEFAULT_ROUTE } from '@troupe/core';
import type { AgentGraphNode, WorkflowOutline, WorkflowOutlineEdge, WorkflowOutlineNode } from './graph.js';

/**
 * The app's structure as ADK's dev server describes it (`GET /dev/apps/{app}/build_graph`, read
 * by ADK's web UI): the root agent with its sub-agents and tools, and a graph workflow with its
 * nodes and edges, START as a node named `__START__`, DEFAULT_ROUTE as the route `default`. Made
 * from {@link AgentGraphNode}, the server's one description of the tree.
 */

/** What a node of ADK's structure is. */
export type AdkNodeType = 'workflow' | 'agent' | 'function' | 'tool' | 'join' | 'start';

/** ADK's name for the START node. */
export const ADK_START = '__START__';

/** An agent or workflow node, as ADK's `serializeAgent` gives it. */
export interface AdkAgentInfo {
  name: string;
  type: AdkNodeType;
  description?: string;
  model?: string;
  tools?: { name: string; type: 'tool' }[];
  graph?: { nodes: AdkAgentInfo[]; edges: AdkEdgeInfo[] };
  sub_agents?: AdkAgentInfo[];
}

/** An edge of a workflow graph, as ADK gives it. */
export interface AdkEdgeInfo {
  from_node: { name: string; type: AdkNodeType };
  to_node: { name: string; type: AdkNodeType };
  route?: string | string[];
}

/** The body of `GET /dev/apps/{app}/build_graph`. */
export interface AdkAppInfo {
  name: string;
  root_agent: AdkAgentInfo;
}

/** The app's structure in ADK's shape. */
export function adkAppInfo(appName: string, root: AgentGraphNode): AdkAppInfo {
  return { name: appName, root_agent: adkAgentInfo(root) };
}

/** One agent (and what is under it) in ADK's shape; `name` renames it (an agent node named otherwise). */
export function adkAgentInfo(agent: AgentGraphNode, name = agent.name): AdkAgentInfo {
  const info: AdkAgentInfo = { name, type: agent.type === 'workflow' ? 'workflow' : 'agent' };
  if (agent.description) info.description = agent.description;
  if (agent.model !== undefined) info.model = agent.model;
  if (agent.workflow) {
    info.graph = adkWorkflowGraph(agent, agent.workflow);
    return info;
  }
  if (agent.tools.length > 0) info.tools = agent.tools.map((tool) => ({ name: tool.name, type: 'tool' }));
  if (agent.children.length > 0) info.sub_agents = agent.children.map((child) => adkAgentInfo(child));
  return info;
}

function adkWorkflowGraph(agent: AgentGraphNode, outline: WorkflowOutline): NonNullable<AdkAgentInfo['graph']> {
  const types = new Map<string, AdkNodeType>([['START', 'start']]);
  const nodes: AdkAgentInfo[] = [{ name: ADK_START, type: 'start' }];
  for (const node of outline.nodes) {
    const info = adkNodeInfo(agent, node);
    types.set(node.name, info.type);
    nodes.push(info);
  }
  const ref = (name: string) => ({ name: name === 'START' ? ADK_START : name, type: types.get(name) ?? 'function' });
  const edges = outline.edges.map((edge) => {
    const out: AdkEdgeInfo = { from_node: ref(edge.from), to_node: ref(edge.to) };
    const route = adkRoute(edge);
    if (route !== undefined) out.route = route;
    return out;
  });
  return { nodes, edges };
}

function adkNodeInfo(workflow: AgentGraphNode, node: WorkflowOutlineNode): AdkAgentInfo {
  if (node.kind === 'agent') {
    const agent = workflowChild(workflow, node);
    if (agent) return adkAgentInfo(agent, node.name);
  }
  const info: AdkAgentInfo = { name: node.name, type: adkNodeType(node) };
  if (node.description) info.description = node.description;
  return info;
}

/** The node's type as ADK names it (a node class of its own is a function to ADK). */
export function adkNodeType(node: WorkflowOutlineNode): Exclude<AdkNodeType, 'start'> {
  return node.kind === 'node' ? 'function' : node.kind;
}

/** The agent an agent node runs, among the workflow's children. */
export function workflowChild(workflow: AgentGraphNode, node: WorkflowOutlineNode): AgentGraphNode | undefined {
  return node.agent === undefined ? undefined : workflow.children.find((child) => child.name === node.agent);
}

/** An edge's route as ADK writes it: `default` for DEFAULT_ROUTE, one route as a string, several as a list. */
export function adkRoute(edge: WorkflowOutlineEdge): string | string[] | undefined {
  if (edge.default) return 'default';
  const routes = edge.routes?.map((r) => (r === DEFAULT_ROUTE ? 'default' : r));
  if (routes === undefined || routes.length === 0) return undefined;
  return routes.length === 1 ? routes[0] : routes;
}
