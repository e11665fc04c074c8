import type { AgentGraphNode } from '../types.js';
import type { KindOf } from './workflow-progress.js';

/** Every agent of the tree, depth first: sub-agents and the agents behind AgentTools. */
export function* walkGraph(node: AgentGraphNode | undefined): Generator<AgentGraphNode> {
  if (!node) return;
  yield node;
  for (const child of node.children) yield* walkGraph(child);
  for (const tool of node.tools) yield* walkGraph(tool.agent);
}

/** The kind of each agent of the tree by its name (`loop`, `plan_execute`, ...), as `GET /apps/{app}/graph` gives it. */
export function kindsOf(graph: AgentGraphNode | undefined): KindOf {
  const kinds = new Map<string, string>();
  for (const node of walkGraph(graph)) if (!kinds.has(node.name)) kinds.set(node.name, node.type);
  return (author) => kinds.get(author);
}
