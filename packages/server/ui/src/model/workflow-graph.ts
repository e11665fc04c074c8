import type { AgentGraphNode, WorkflowOutline } from '../types.js';

/** The route an edge takes when none of its source's routed edges matched (core's `DEFAULT_ROUTE`). */
export const DEFAULT_ROUTE = '__DEFAULT__';

/** Where entry edges start in a workflow's outline. */
export const START = 'START';

/** One graph workflow of the app's agent tree, and where its nodes' events are. */
export interface WorkflowSite {
  /** The workflow agent's name. */
  agent: string;
  /**
   * The `nodeInfo.path` its node runs are under: the workflow's name, or, for a workflow that runs
   * as a node of another (`outer.inner`), the outer's path and the node's name.
   */
  path: string;
  outline: WorkflowOutline;
  /** How many workflows it is nested in (0 for one that is not a node of another). */
  depth: number;
}

/**
 * Every graph workflow of the tree (the agents whose `GET /apps/{app}/graph` node has a `workflow`),
 * outermost first, each with the node path its runs are recorded under. A workflow that is an agent
 * node of another follows it, under the path `<outer path>.<node name>`; any other workflow runs
 * under its own name (core gives a nested workflow its site's path only when it is a node).
 */
export function workflowSites(graph: AgentGraphNode | undefined): WorkflowSite[] {
  const sites: WorkflowSite[] = [];
  const placed = new Set<AgentGraphNode>();
  const visit = (agent: AgentGraphNode, path: string, depth: number): void => {
    const outline = agent.workflow;
    if (!outline || placed.has(agent)) return;
    placed.add(agent);
    sites.push({ agent: agent.name, path, outline, depth });
    for (const node of outline.nodes) {
      if (node.kind !== 'agent' || node.agent === undefined) continue;
      const child = agent.children.find((c) => c.name === node.agent);
      if (child) visit(child, `${path}.${node.name}`, depth + 1);
    }
  };
  const walk = (agent: AgentGraphNode): void => {
    visit(agent, agent.name, 0);
    for (const child of agent.children) walk(child);
    for (const tool of agent.tools) if (tool.agent) walk(tool.agent);
  };
  if (graph) walk(graph);
  return sites;
}

/** An edge's label: its routes (DEFAULT_ROUTE as `default`) and its `maxIterations`; empty for an unconditional edge. */
export function edgeLabel(edge: WorkflowOutline['edges'][number]): string {
  const routes = edge.default ? ['default'] : (edge.routes ?? []).map((r) => (r === DEFAULT_ROUTE ? 'default' : r));
  const parts = routes.length > 0 ? [routes.join(', ')] : [];
  if (edge.maxIterations !== undefined) parts.push(`max ${edge.maxIterations}×`);
  return parts.join(' · ');
}

/** A node's second line: its kind, the agent it runs when named otherwise, and `per item` for a parallel worker. */
export function nodeSubtitle(node: WorkflowOutline['nodes'][number]): string {
  const parts: string[] = [node.kind];
  if (node.agent !== undefined && node.agent !== node.name) parts.push(node.agent);
  if (node.parallelWorker) parts.push('per item');
  return parts.join(' · ');
}
