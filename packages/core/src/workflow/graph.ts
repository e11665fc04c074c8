import { ConfigurationError } from '../errors.js';
import type { RouteKey } from '../events/event.js';
import type { BaseNode } from './base-node.js';

/** The route an edge takes when none of its source's routed edges matched (ADK's). */
export const DEFAULT_ROUTE = '__DEFAULT__';

/** The workflow's entry point in edges: `['START', first, …]`. */
export const START = 'START';

/** An explicit edge (ADK's repository form), with Troupe's `maxIterations` for back-edges. */
export interface EdgeSpec<N = unknown> {
  fromNode: N;
  toNode: N;
  /** Fires when the source emits one of these routes; unset: always. */
  route?: RouteKey | RouteKey[] | null;
  /** Follow this edge at most this many times per workflow run; then the source's other edges (or DEFAULT_ROUTE) are taken, or the branch ends. */
  maxIterations?: number;
}

/** `{ ROUTE: to | [to, …], [DEFAULT_ROUTE]: to }`. */
export type RoutingMap<N = unknown> = Record<string, N | readonly N[]>;

/** One element of an edge chain. */
export type ChainElement<N = unknown> = N | readonly N[] | RoutingMap<N>;

/** What `edges` holds: chains (`['START', a, [b, c], d]`) and explicit edges. */
export type EdgeItem<N = unknown> = readonly ChainElement<N>[] | EdgeSpec<N>;

/** A resolved edge between two nodes of a workflow. */
export interface Edge {
  readonly from: string;
  readonly to: string;
  /** Route keys as strings (matched by string value, as ADK does); undefined: unconditional. */
  readonly routes: readonly string[] | undefined;
  readonly isDefault: boolean;
  readonly maxIterations: number | undefined;
  /** Its place in the edge list: what iteration counts are keyed by. */
  readonly index: number;
}

/** One node of a graph by number: what a run reads of it as it schedules. @internal */
export interface SlotInfo {
  readonly name: string;
  readonly node: BaseNode;
  /** A JoinNode: it waits for all its predecessors. */
  readonly join: boolean;
  /** No edges out: its output is the workflow's. */
  readonly terminal: boolean;
  /** When every edge out fires on every completion (no route, DEFAULT or maxIterations): their targets. */
  readonly alwaysFires: readonly number[] | undefined;
  readonly predecessors: readonly number[];
}

/** A workflow's nodes and edges, checked. */
export class WorkflowGraph {
  readonly nodes: ReadonlyMap<string, BaseNode>;
  readonly edges: readonly Edge[];
  /** Nodes without outgoing edges: the workflow's output is theirs. */
  readonly terminals: ReadonlySet<string>;
  private readonly outgoing = new Map<string, Edge[]>();
  private readonly incoming = new Map<string, string[]>();
  /** Nodes whose edges out all fire on every completion (no route, no DEFAULT, no maxIterations). */
  private readonly alwaysAll = new Set<string>();
  /**
   * The nodes by number (their order in `nodes`): a run keeps its schedule in arrays indexed by
   * these slots instead of maps keyed by name. @internal
   */
  readonly slots: readonly SlotInfo[];
  /** A node's slot by name. @internal */
  readonly slotOf: ReadonlyMap<string, number>;
  /** The slots START triggers. @internal */
  readonly startSlots: readonly number[];
  /** True when some edge has `maxIterations` (a run then counts edge uses). @internal */
  readonly countsUses: boolean;
  /** The node paths of a run of this graph at the root (`<workflow>.<node>`), made once. */
  private readonly rootPaths: readonly string[];

  constructor(workflow: string, nodes: Map<string, BaseNode>, edges: Edge[]) {
    this.nodes = nodes;
    this.edges = edges;
    for (const edge of edges) {
      let out = this.outgoing.get(edge.from);
      if (!out) this.outgoing.set(edge.from, (out = []));
      out.push(edge);
      if (edge.from !== START) {
        let into = this.incoming.get(edge.to);
        if (!into) this.incoming.set(edge.to, (into = []));
        if (!into.includes(edge.from)) into.push(edge.from);
      }
    }
    validate(workflow, this, edges);
    for (const [from, out] of this.outgoing)
      if (out.every((e) => e.routes === undefined && !e.isDefault && e.maxIterations === undefined))
        this.alwaysAll.add(from);
    const terminals = new Set<string>();
    for (const name of nodes.keys()) if (!this.outgoing.has(name)) terminals.add(name);
    this.terminals = terminals;
    const slotOf = new Map<string, number>();
    for (const name of nodes.keys()) slotOf.set(name, slotOf.size);
    this.slotOf = slotOf;
    this.slots = [...nodes].map(([name, node]) => ({
      name,
      node,
      join: node.requiresAllPredecessors,
      terminal: terminals.has(name),
      alwaysFires: this.alwaysAll.has(name) ? this.edgesFrom(name).map((edge) => slotOf.get(edge.to)!) : undefined,
      predecessors: this.predecessors(name).map((from) => slotOf.get(from)!),
    }));
    this.startSlots = this.edgesFrom(START).map((edge) => slotOf.get(edge.to)!);
    this.countsUses = edges.some((edge) => edge.maxIterations !== undefined);
    this.workflow = workflow;
    this.rootPaths = this.slots.map((slot) => `${workflow}.${slot.name}`);
  }

  private readonly workflow: string;

  /** The node paths of a run of this graph under `prefix` (the workflow's path), by slot. @internal */
  pathsUnder(prefix: string): readonly string[] {
    return prefix === this.workflow ? this.rootPaths : this.slots.map((slot) => `${prefix}.${slot.name}`);
  }

  /**
   * {@link next} by slot: the slots a completion of `from` with `route` triggers, each once per
   * firing edge, in edge order; `uses` (edge uses by edge index, when the graph counts them) is
   * updated. @internal
   */
  fire(from: number, route: RouteKey | RouteKey[] | undefined, uses: number[] | undefined): readonly number[] {
    const slot = this.slots[from]!;
    if (slot.alwaysFires) return slot.alwaysFires;
    const targets: number[] = [];
    for (const edge of this.next(slot.name, route, uses)) {
      if (uses && edge.maxIterations !== undefined) uses[edge.index] = (uses[edge.index] ?? 0) + 1;
      targets.push(this.slotOf.get(edge.to)!);
    }
    return targets;
  }

  /** Edges out of `from` (START included). */
  edgesFrom(from: string): readonly Edge[] {
    return this.outgoing.get(from) ?? [];
  }

  /** The nodes with an edge into `to` (not START). */
  predecessors(to: string): readonly string[] {
    return this.incoming.get(to) ?? [];
  }

  /**
   * The edges a completion of `from` with `route` fires: unconditional edges, routed edges whose
   * routes include one emitted, and the DEFAULT_ROUTE edge when no routed edge matched. An edge
   * used up (`maxIterations`) does not fire; `uses` counts what fired before, by edge index.
   */
  next(from: string, route: RouteKey | RouteKey[] | undefined, uses: readonly number[] | undefined): readonly Edge[] {
    // Most nodes: every edge out, whatever the route (a chain, a fan-out).
    if (this.alwaysAll.has(from)) return this.edgesFrom(from);
    const emitted = route === undefined || route === null ? [] : (Array.isArray(route) ? route : [route]).map(String);
    const fired: Edge[] = [];
    let matched = false;
    let fallback: Edge | undefined;
    for (const edge of this.edgesFrom(from)) {
      const spent = edge.maxIterations !== undefined && (uses?.[edge.index] ?? 0) >= edge.maxIterations;
      if (edge.isDefault) {
        if (!spent) fallback = edge;
        continue;
      }
      if (spent) continue;
      if (edge.routes === undefined) {
        fired.push(edge);
        // A counted back-edge is the way on until it is used up; then DEFAULT_ROUTE is the exit (SPEC §17.1).
        if (edge.maxIterations !== undefined) matched = true;
        continue;
      }
      if (edge.routes.some((r) => emitted.includes(r))) {
        fired.push(edge);
        matched = true;
      }
    }
    if (!matched && fallback) fired.push(fallback);
    return fired;
  }
}

function validate(workflow: string, graph: WorkflowGraph, edges: readonly Edge[]): void {
  const where = `Workflow '${workflow}'`;
  if (!edges.some((e) => e.from === START))
    throw new ConfigurationError(
      `${where} has no edge from START, so nothing would run. Begin a chain with 'START': edges: [['START', firstNode, …]].`,
    );
  const seen = new Set<string>();
  const defaults = new Set<string>();
  for (const edge of edges) {
    const label = `the edge ${edge.from} → ${edge.to}`;
    if (edge.to === START)
      throw new ConfigurationError(
        `${where}: ${label} goes into START, which only starts the workflow. Point it at a node.`,
      );
    if (edge.from === START && (edge.routes !== undefined || edge.isDefault))
      throw new ConfigurationError(
        `${where}: ${label} has a route, but START emits none. Drop the route, or route from a node after START.`,
      );
    const key = `${edge.from}\u0000${edge.to}\u0000${edge.isDefault ? DEFAULT_ROUTE : (edge.routes?.join('\u0001') ?? '')}`;
    if (seen.has(key))
      throw new ConfigurationError(
        `${where} has ${label}${edge.routes ? ` (route ${edge.routes.join(', ')})` : ''} twice. Remove one.`,
      );
    seen.add(key);
    if (edge.isDefault) {
      if (defaults.has(edge.from))
        throw new ConfigurationError(
          `${where}: node '${edge.from}' has two DEFAULT_ROUTE edges; only one can be taken when no route matched. Keep one.`,
        );
      defaults.add(edge.from);
    }
  }
  checkParallelEdges(where, edges);
  // Every node is reachable from START.
  const reached = new Set<string>([START]);
  const queue = [START];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const edge of graph.edgesFrom(from)) {
      if (reached.has(edge.to)) continue;
      reached.add(edge.to);
      queue.push(edge.to);
    }
  }
  for (const name of graph.nodes.keys())
    if (!reached.has(name))
      throw new ConfigurationError(
        `${where}: node '${name}' cannot be reached from START. Add an edge into it, or remove it.`,
      );
  // A cycle of unconditional edges never ends: it needs a route out, or maxIterations on one of its edges.
  // A DEFAULT edge is unconditional too when its node has no routed edge that could match instead.
  const routes = new Set<string>();
  for (const edge of edges) if (edge.routes !== undefined) routes.add(edge.from);
  const always = new Map<string, string[]>();
  for (const edge of edges)
    if (
      edge.routes === undefined &&
      (!edge.isDefault || !routes.has(edge.from)) &&
      edge.maxIterations === undefined &&
      edge.from !== START
    ) {
      let out = always.get(edge.from);
      if (!out) always.set(edge.from, (out = []));
      out.push(edge.to);
    }
  const cycle = findCycle(always);
  if (cycle)
    throw new ConfigurationError(
      `${where} has a cycle with no way out: ${[...cycle, cycle[0]].join(' → ')}. Every edge in it always fires, so it would never end. Route one of its edges (a route map with an exit), or give a back-edge maxIterations: { fromNode, toNode, maxIterations: 3 }.`,
    );
}

/**
 * Two edges from one node to another may not both fire on one completion (ADK keeps one edge per
 * pair): two routed or unrouted edges could, and so could an unrouted one beside a DEFAULT one. A
 * route and a DEFAULT edge to the same node are allowed: DEFAULT fires only when no route matched.
 */
function checkParallelEdges(where: string, edges: readonly Edge[]): void {
  const byPair = new Map<string, Edge[]>();
  for (const edge of edges) {
    const key = `${edge.from}\u0000${edge.to}`;
    const list = byPair.get(key);
    if (list) list.push(edge);
    else byPair.set(key, [edge]);
  }
  for (const pair of byPair.values()) {
    if (pair.length < 2) continue;
    const plain = pair.filter((e) => !e.isDefault);
    if (plain.length < 2 && !(pair.some((e) => e.isDefault) && plain.some((e) => e.routes === undefined))) continue;
    const { from, to } = pair[0]!;
    const kinds = pair.map((e) =>
      e.isDefault ? 'DEFAULT_ROUTE' : e.routes ? `route ${e.routes.join(', ')}` : 'always',
    );
    const routes = plain.flatMap((e) => e.routes ?? []);
    const fix =
      routes.length === plain.length && routes.length > 0
        ? `Use one edge with a route list: { fromNode: '${from}', toNode: '${to}', route: [${routes.map((r) => `'${r}'`).join(', ')}] }.`
        : `Keep one of them.`;
    throw new ConfigurationError(
      `${where}: node '${from}' has ${pair.length} edges to '${to}' (${kinds.join('; ')}); one completion could fire more than one and run '${to}' twice. ${fix}`,
    );
  }
}

function findCycle(adjacency: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 1);
    stack.push(node);
    for (const next of adjacency.get(node) ?? []) {
      const s = state.get(next);
      if (s === 1) return stack.slice(stack.indexOf(next));
      if (s === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 2);
    return undefined;
  };
  for (const node of adjacency.keys()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}
