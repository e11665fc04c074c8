import { ConfigurationError } from '../errors.js';
import type { Schema } from '../utils/schema.js';
import type { BaseNode } from '../workflow/base-node.js';
import { DEFAULT_ROUTE, START, type EdgeItem } from '../workflow/graph.js';
import { Workflow } from '../workflow/workflow.js';
import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { commonOptions, readSchema, type DefinitionCommon } from './build-common.js';
import { AgentDefinitionError, whereText, type DefinitionLocation } from './definition-error.js';
import { closest } from './normalize-keys.js';
import { describeNode, type SourceNode } from './parse-document.js';
import { MapReader } from './read-values.js';
import { compileNode, type NodePlan } from './workflow-nodes.js';

/** The keys of `type: workflow` besides type, name and description. */
export const WORKFLOW_KEYS = [
  'nodes',
  'edges',
  'maxConcurrency',
  'maxSteps',
  'stateSchema',
  'inputSchema',
  'outputSchema',
] as const;

/** How a route map names DEFAULT_ROUTE: its value, or the constant's name. */
const DEFAULT_ROUTE_KEYS = new Set([DEFAULT_ROUTE, 'DEFAULT_ROUTE']);

const EDGE_KEYS = ['from', 'to', 'fromNode', 'toNode', 'route', 'maxIterations'];

/** An edge item read from the file: node names, checked against `nodes:`, with where each item is. */
type NameItem = { at: DefinitionLocation; chain: ChainName[] } | { at: DefinitionLocation; edge: NamedEdge };
type ChainName = string | string[] | Record<string, string | string[]>;
interface NamedEdge {
  from: string;
  to: string;
  route?: string | number | boolean | (string | number | boolean)[];
  maxIterations?: number;
}

/**
 * Reads a `type: workflow` definition (a graph workflow, SPEC §17): `nodes:` (a mapping of name →
 * node, or a list of nodes that name themselves), `edges:` (chains `[START, a, [b, c], d]`, route
 * maps `{ route: target }` in chains, explicit `{ from, to, route?, max_iterations? }`), and
 * `max_concurrency`, `max_steps`, `state_schema`, `input_schema`, `output_schema`. Agent nodes
 * become the workflow's sub-agents. Node names in edges are checked against `nodes:` here, so a
 * typo is reported at its line; the graph's own rules (reachability, cycles) at `edges:`.
 */
export async function compileWorkflow(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const nodes = await readNodes(compiler, r, scope);
  const items = readEdges(r, nodes);
  const maxConcurrency = r.integer('maxConcurrency', 1, 4);
  const maxSteps = r.integer('maxSteps', 1, 100);
  const stateShape = r.plainObject('stateSchema', '{ type: object, properties: { topic: { type: string } } }');
  const stateSchema: Schema | undefined =
    stateShape === undefined
      ? undefined
      : await compiler.ctx.checkSchema(stateShape, r.at('stateSchema'), `'${r.shown('stateSchema')}'`);
  const inputSchema = await readSchema(compiler, r, 'inputSchema');
  const outputSchema = await readSchema(compiler, r, 'outputSchema');
  const agents = [...nodes.values()].flatMap((n) => (n.agent ? [n.agent] : []));
  return {
    at: common.at,
    name: common.name,
    children: agents,
    toolAgents: [],
    create: (build) => {
      const built = new Map<string, BaseNode>();
      for (const [name, plan] of nodes) {
        try {
          built.set(name, plan.create(build));
        } catch (error) {
          if (error instanceof AgentDefinitionError || !(error instanceof ConfigurationError)) throw error;
          throw new AgentDefinitionError(plan.at, error.message, { cause: error });
        }
      }
      try {
        return new Workflow({
          ...commonOptions(common),
          edges: items.map((item) => toEdgeItem(item, built)),
          ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
          ...(maxSteps !== undefined ? { maxSteps } : {}),
          ...(stateSchema !== undefined ? { stateSchema } : {}),
          ...(inputSchema !== undefined ? { inputSchema } : {}),
          ...(outputSchema !== undefined ? { outputSchema } : {}),
        });
      } catch (error) {
        if (!(error instanceof ConfigurationError)) throw error;
        throw new AgentDefinitionError(r.at('edges'), error.message, { cause: error });
      }
    },
  };
}

/** `nodes:` as a mapping (the key names the node) or a list (each entry names itself). */
async function readNodes(compiler: Compiler, r: MapReader, scope: Scope): Promise<Map<string, NodePlan>> {
  const value = r.require(
    'nodes',
    "the workflow's nodes, as a mapping of name to node",
    '{ classify: ./nodes.js#classify, answer: ./answer.yaml }',
  );
  const shown = `${r.keyPrefix}${r.shown('nodes')}`;
  const plans = new Map<string, NodePlan>();
  const add = (plan: NodePlan): void => {
    const twin = plans.get(plan.name);
    if (twin)
      throw new AgentDefinitionError(
        plan.at,
        `a second workflow node is named '${plan.name}' (the first is at ${whereText(twin.at)}). Node names are unique in a workflow; rename one.`,
      );
    if (plan.name === START || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(plan.name) || plan.name === 'user')
      throw new AgentDefinitionError(
        plan.at,
        `'${plan.name}' cannot name a workflow node: use letters, digits, '_' or '$', not starting with a digit, and not START or user (e.g. 'classify').`,
      );
    plans.set(plan.name, plan);
  };
  if (value.kind === 'map') {
    for (const entry of value.entries) {
      const at = { file: value.file, line: entry.line, key: `${shown}.${entry.key}` };
      add(await compileNode(compiler, { node: entry.value, at, key: entry.key }, scope));
    }
  } else if (value.kind === 'seq') {
    for (const item of r.list('nodes', '[./nodes.js#classify]')!) add(await compileNode(compiler, item, scope));
  } else {
    r.fail(
      'nodes',
      `'${r.shown('nodes')}' must be a mapping of node name to node (or a list of nodes); got ${describeNode(value)}.`,
    );
  }
  if (plans.size === 0) r.fail('nodes', `'${r.shown('nodes')}' is empty; a workflow needs at least one node.`);
  return plans;
}

/** `edges:`, with every node name checked against `nodes:`. */
function readEdges(r: MapReader, nodes: ReadonlyMap<string, NodePlan>): NameItem[] {
  const items = r.list('edges', '[[START, classify, answer]]');
  if (!items || items.length === 0)
    r.fail(
      'edges',
      `'${r.shown('edges')}' is required: chains of node names from START, e.g. '${r.shown('edges')}: [[START, classify, { question: answer, other: fallback }]]'.`,
    );
  const used = new Set<string>();
  const name = (node: SourceNode, at: DefinitionLocation, where: string, startAllowed: boolean): string => {
    if (node.kind !== 'scalar' || typeof node.value !== 'string')
      throw new AgentDefinitionError(at, `${where} must be a node name; got ${describeNode(node)}.`);
    const value = node.value;
    if (value === START || value === '__START__') {
      if (startAllowed) return START;
      throw new AgentDefinitionError(at, `${where} is START, which only begins a chain; name a node here.`);
    }
    if (!nodes.has(value)) {
      const near = closest(value, nodes.keys());
      throw new AgentDefinitionError(
        { ...at, line: node.line },
        `${where} names '${value}', which is not a node of this workflow.${near ? ` Did you mean '${near}'?` : ''} Its nodes are: ${[...nodes.keys()].join(', ')} (and START).`,
      );
    }
    used.add(value);
    return value;
  };
  const read = items.map(({ node, at }): NameItem => {
    if (node.kind === 'seq') {
      const chain = node.items.map((element, i): ChainName => {
        const where = `element ${i} of this chain`;
        if (element.kind === 'seq') return element.items.map((e) => name(e, at, where, false));
        if (element.kind === 'map') {
          if (i === 0)
            throw new AgentDefinitionError(
              { ...at, line: element.line },
              `this chain starts with a route map; a route map follows the node it routes from: [classify, { question: answer }].`,
            );
          const routes: Record<string, string | string[]> = {};
          for (const entry of element.entries) {
            const where = `route '${entry.key}'`;
            const target = entry.value;
            const key = DEFAULT_ROUTE_KEYS.has(entry.key) ? DEFAULT_ROUTE : entry.key;
            routes[key] =
              target.kind === 'seq'
                ? target.items.map((t) => name(t, at, where, false))
                : name(target, { ...at, line: entry.line }, where, false);
          }
          return routes;
        }
        return name(element, at, where, i === 0);
      });
      return { at, chain };
    }
    if (node.kind === 'map') {
      const e = new MapReader(node, `${at.key}.`);
      e.checkKeys(EDGE_KEYS, 'an edge');
      const endpoint = (short: 'from' | 'to'): string => {
        const key = e.has(short) ? short : (`${short}Node` as const);
        const value =
          e.value(key) ??
          e.fail(
            short,
            `an edge needs '${e.shown(short)}': the node it goes ${short}, e.g. '{ from: review, to: draft }'.`,
          );
        return name(value, e.at(key), `'${e.shown(key)}'`, short === 'from');
      };
      const edge: NamedEdge = { from: endpoint('from'), to: endpoint('to') };
      const route = e.value('route');
      if (route !== undefined) edge.route = routeValue(route, e);
      const maxIterations = e.integer('maxIterations', 1, 3);
      if (maxIterations !== undefined) edge.maxIterations = maxIterations;
      return { at, edge };
    }
    throw new AgentDefinitionError(
      at,
      `an edge is a chain of node names ([START, classify, answer]) or an edge mapping ({ from: review, to: draft, route: revise }); got ${describeNode(node)}.`,
    );
  });
  for (const [nodeName, plan] of nodes)
    if (!used.has(nodeName))
      throw new AgentDefinitionError(
        plan.at,
        `node '${nodeName}' is in no edge, so it would never run. Add it to '${r.shown('edges')}' (e.g. [START, ${nodeName}]), or remove it.`,
      );
  return read;
}

function routeValue(node: SourceNode, e: MapReader): NonNullable<NamedEdge['route']> {
  const one = (value: SourceNode): string | number | boolean => {
    if (
      value.kind === 'scalar' &&
      (typeof value.value === 'string' || typeof value.value === 'number' || typeof value.value === 'boolean')
    )
      return typeof value.value === 'string' && DEFAULT_ROUTE_KEYS.has(value.value) ? DEFAULT_ROUTE : value.value;
    return e.fail(
      'route',
      `'${e.shown('route')}' must be a route (text, a number, true or false) or a list of them; got ${describeNode(value)}.`,
    );
  };
  return node.kind === 'seq' ? node.items.map(one) : one(node);
}

/** An edge item of node names, turned into the workflow's edge item of built nodes. */
function toEdgeItem(item: NameItem, built: ReadonlyMap<string, BaseNode>): EdgeItem {
  const of = (name: string): BaseNode | typeof START => (name === START ? START : built.get(name)!);
  if ('edge' in item) {
    const { from, to, route, maxIterations } = item.edge;
    return {
      fromNode: of(from),
      toNode: of(to),
      ...(route !== undefined ? { route } : {}),
      ...(maxIterations !== undefined ? { maxIterations } : {}),
    };
  }
  return item.chain.map((element) => {
    if (typeof element === 'string') return of(element);
    if (Array.isArray(element)) return element.map(of);
    return Object.fromEntries(
      Object.entries(element).map(([route, target]) => [route, Array.isArray(target) ? target.map(of) : of(target)]),
    );
  });
}
