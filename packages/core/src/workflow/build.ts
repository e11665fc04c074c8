import { BaseAgent } from '../agents/base-agent.js';
import { ConfigurationError } from '../errors.js';
import { BaseTool } from '../tools/base-tool.js';
import { AgentNode } from './agent-node.js';
import { isBaseNode, type BaseNode } from './base-node.js';
import { DEFAULT_ROUTE, START, WorkflowGraph, type Edge, type EdgeItem, type EdgeSpec } from './graph.js';
import { node, type NodeLike } from './node.js';

/** A workflow's graph and the agents its nodes run (they become its sub-agents). */
export interface BuiltGraph {
  graph: WorkflowGraph;
  agents: BaseAgent[];
}

/**
 * Turns `edges` into a checked graph. The same function, agent or tool object is one node wherever
 * it appears; a string names a node given elsewhere in the edges. Errors name the edge and the fix.
 */
export function buildGraph(workflow: string, items: readonly EdgeItem[]): BuiltGraph {
  const where = `Workflow '${workflow}'`;
  if (!Array.isArray(items) || items.length === 0)
    throw new ConfigurationError(
      `${where} needs edges: a list of chains such as [['START', first, second]], or a dynamicEntry function.`,
    );
  const byObject = new Map<unknown, BaseNode>();
  const byName = new Map<string, BaseNode>();
  const named: { name: string; item: number }[] = [];
  const toNode = (value: unknown, item: number): string => {
    if (value === START || value === '__START__') return START;
    if (typeof value === 'string') {
      named.push({ name: value, item });
      return value;
    }
    let built = byObject.get(value);
    if (!built) {
      if (!isNodeLike(value))
        throw new ConfigurationError(
          `${where}: edge item ${item} holds ${describe(value)}, which is not a node. Use a function, an agent, a tool, a node, 'START', a list of them, or a route map { ROUTE: node }.`,
        );
      built = node(value as NodeLike);
      byObject.set(value, built);
      const other = byName.get(built.name);
      if (other && other !== built)
        throw new ConfigurationError(
          `${where} has two different nodes named '${built.name}'. Node names are unique in a workflow; rename one with node(x, { name }).`,
        );
      byName.set(built.name, built);
    }
    return built.name;
  };
  const edges: Edge[] = [];
  const add = (from: string, to: string, route: unknown, maxIterations: number | undefined, item: number): void => {
    let routes: string[] | undefined;
    let isDefault = false;
    if (route !== undefined && route !== null) {
      const list = Array.isArray(route) ? route : [route];
      for (const r of list)
        if (typeof r !== 'string' && typeof r !== 'number' && typeof r !== 'boolean')
          throw new ConfigurationError(
            `${where}: the edge ${from} → ${to} has route ${JSON.stringify(r)}; a route is a string, number or boolean.`,
          );
      if (list.map(String).includes(DEFAULT_ROUTE)) {
        if (list.length > 1)
          throw new ConfigurationError(
            `${where}: the edge ${from} → ${to} lists DEFAULT_ROUTE among other routes; DEFAULT_ROUTE stands alone. Give it an edge of its own.`,
          );
        isDefault = true;
      } else routes = list.map(String);
    }
    if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1))
      throw new ConfigurationError(
        `${where}: the edge ${from} → ${to} has maxIterations ${JSON.stringify(maxIterations)}; use a whole number of at least 1.`,
      );
    void item;
    edges.push({ from, to, routes, isDefault, maxIterations, index: edges.length });
  };
  items.forEach((itemValue, item) => {
    if (Array.isArray(itemValue)) {
      let previous: string[] | undefined;
      for (const element of itemValue as unknown[]) {
        if (isRoutingMap(element)) {
          if (!previous)
            throw new ConfigurationError(
              `${where}: edge item ${item} starts with a route map; a route map follows the node it routes from: [from, { ROUTE: to }].`,
            );
          const targets: string[] = [];
          for (const [route, to] of Object.entries(element)) {
            for (const target of Array.isArray(to) ? to : [to]) {
              const name = toNode(target, item);
              for (const from of previous) add(from, name, route, undefined, item);
              if (!targets.includes(name)) targets.push(name);
            }
          }
          previous = targets;
          continue;
        }
        const names = Array.isArray(element) ? element.map((e) => toNode(e, item)) : [toNode(element, item)];
        if (previous) for (const from of previous) for (const to of names) add(from, to, undefined, undefined, item);
        previous = names;
      }
      return;
    }
    if (isEdgeSpec(itemValue)) {
      const spec = itemValue as EdgeSpec;
      add(toNode(spec.fromNode, item), toNode(spec.toNode, item), spec.route, spec.maxIterations, item);
      return;
    }
    throw new ConfigurationError(
      `${where}: edge item ${item} is ${describe(itemValue)}; use a chain (a list such as ['START', a, b]) or an edge { fromNode, toNode, route? }.`,
    );
  });
  for (const { name, item } of named)
    if (!byName.has(name))
      throw new ConfigurationError(
        `${where}: edge item ${item} names node '${name}', and no node of that name is in the edges. Pass the node itself, or check the spelling (nodes: ${[...byName.keys()].join(', ') || 'none'}).`,
      );
  const agents: BaseAgent[] = [];
  for (const built of byName.values())
    if (built instanceof AgentNode && !agents.includes(built.agent)) agents.push(built.agent);
  return { graph: new WorkflowGraph(workflow, byName, edges), agents };
}

function isNodeLike(value: unknown): boolean {
  return isBaseNode(value) || value instanceof BaseAgent || value instanceof BaseTool || typeof value === 'function';
}

function isEdgeSpec(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'fromNode' in value && 'toNode' in value;
}

function isRoutingMap(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !isNodeLike(value) &&
    !isEdgeSpec(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
