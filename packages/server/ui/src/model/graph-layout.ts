import type { WorkflowOutline } from '../types.js';
import { edgeLabel, nodeSubtitle, START } from './workflow-graph.js';

/** A node placed on the drawing: `x`, `y` are its top left corner. */
export interface LaidNode {
  /** The node's name, or `START`. */
  id: string;
  layer: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge drawn as an SVG path, with its label's centre. */
export interface LaidEdge {
  /** `from→to`: the edges between one pair of nodes are drawn as one, their labels joined. */
  key: string;
  from: string;
  to: string;
  /** Routes (`default` for DEFAULT_ROUTE) and `max N×`; empty for an unconditional edge. */
  label: string;
  /** True for an edge back to an earlier (or the same) layer: a loop, drawn as a curve on the right. */
  back: boolean;
  /** The SVG path's `d`. */
  d: string;
  labelX: number;
  labelY: number;
  /** The width of the box behind the label (0 without one). */
  labelWidth: number;
}

/** Where every node and edge of a workflow goes, in pixels. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidNode[];
  edges: LaidEdge[];
}

const MARGIN = 16;
const NODE_HEIGHT = 46;
const START_WIDTH = 64;
const START_HEIGHT = 28;
const LAYER_GAP = 62;
const NODE_GAP = 34;
const DUMMY_WIDTH = 12;
const BACK_EDGE_SPACING = 26;
/** Average advance of a character of the node names (13 px, semibold system font) and labels (11 px). */
const NAME_CHAR = 7.8;
const LABEL_CHAR = 6.4;
const MIN_NODE_WIDTH = 104;
const MAX_NODE_WIDTH = 220;

/** How wide a node box is drawn for its name (after a status mark) and its second line. */
export function nodeWidth(name: string, subtitle = ''): number {
  const wanted = Math.max(name.length * NAME_CHAR + 44, subtitle.length * LABEL_CHAR + 24);
  return Math.round(Math.min(MAX_NODE_WIDTH, Math.max(MIN_NODE_WIDTH, wanted)));
}

/**
 * A layered drawing of a workflow, top to bottom: START in the first layer, every other node in
 * the layer of its longest path from START (over the edges that are not loops), so a node is
 * always below all of its forward predecessors. Loops are the edges a depth-first walk from START
 * finds going back to a node on its stack; they are drawn as curves to the right. An edge that
 * skips layers passes through a waypoint in each, which takes part in the ordering, so it goes
 * around the nodes between. Within a layer, nodes are ordered by the mean position of their
 * neighbours (a few sweeps down and up), then moved under their predecessors as far as the
 * spacing allows.
 */
export function layoutWorkflow(outline: WorkflowOutline): GraphLayout {
  const ids = [START, ...outline.nodes.map((n) => n.name).filter((n) => n !== START)];
  const known = new Set(ids);
  // Edges to or from a node the outline does not list still get drawn: the node is added.
  for (const e of outline.edges)
    for (const id of [e.from, e.to])
      if (!known.has(id)) {
        known.add(id);
        ids.push(id);
      }

  // Pairs of nodes, each drawn once, labels joined in edge order.
  const pairs = new Map<string, { from: string; to: string; labels: string[] }>();
  for (const e of outline.edges) {
    const key = `${e.from}→${e.to}`;
    let pair = pairs.get(key);
    if (!pair) pairs.set(key, (pair = { from: e.from, to: e.to, labels: [] }));
    const label = edgeLabel(e);
    if (label && !pair.labels.includes(label)) pair.labels.push(label);
  }
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const { from, to } of pairs.values()) out.get(from)!.push(to);

  const back = findBackEdges(ids, out);
  const layer = longestPathLayers(ids, out, back);

  // Layers with waypoints for the edges that skip layers.
  const layers: string[][] = [];
  const put = (id: string, at: number) => (layers[at] ??= []).push(id);
  for (const id of ids) put(id, layer.get(id)!);
  const chains = new Map<string, string[]>(); // pair key → its waypoints, top to bottom
  const down = new Map<string, string[]>(ids.map((id) => [id, []])); // forward neighbours, waypoints included
  for (const [key, { from, to }] of pairs) {
    if (back.has(key)) continue;
    const waypoints: string[] = [];
    let previous = from;
    for (let at = layer.get(from)! + 1; at < layer.get(to)!; at++) {
      const waypoint = `\u0000${key}\u0000${at}`;
      waypoints.push(waypoint);
      put(waypoint, at);
      down.set(waypoint, []);
      down.get(previous)!.push(waypoint);
      previous = waypoint;
    }
    down.get(previous)!.push(to);
    chains.set(key, waypoints);
  }
  for (let at = 0; at < layers.length; at++) layers[at] ??= [];
  const up = new Map<string, string[]>([...down.keys()].map((id) => [id, []]));
  for (const [from, targets] of down) for (const to of targets) up.get(to)!.push(from);

  orderLayers(layers, up, down);

  // Sizes, then x: each layer packed and centred, then nodes pulled under their predecessors.
  const subtitles = new Map(outline.nodes.map((n) => [n.name, nodeSubtitle(n)]));
  const width = (id: string): number =>
    isWaypoint(id) ? DUMMY_WIDTH : id === START ? START_WIDTH : nodeWidth(id, subtitles.get(id));
  const x = new Map<string, number>();
  const widest = Math.max(...layers.map((l) => packedWidth(l, width)));
  for (const l of layers) {
    let left = MARGIN + (widest - packedWidth(l, width)) / 2;
    for (const id of l) {
      x.set(id, left);
      left += width(id) + NODE_GAP;
    }
  }
  for (let at = 1; at < layers.length; at++) alignUnder(layers[at]!, up, x, width);
  const minX = Math.min(...[...x.values()]);
  for (const [id, value] of x) x.set(id, value - minX + MARGIN);

  const top = (at: number) => MARGIN + at * (NODE_HEIGHT + LAYER_GAP);
  const nodes: LaidNode[] = [];
  const placed = new Map<string, LaidNode>();
  for (const id of ids) {
    const at = layer.get(id)!;
    const height = id === START ? START_HEIGHT : NODE_HEIGHT;
    const laid = {
      id,
      layer: at,
      x: round(x.get(id)!),
      y: round(top(at) + (NODE_HEIGHT - height) / 2),
      width: width(id),
      height,
    };
    nodes.push(laid);
    placed.set(id, laid);
  }
  let right = Math.max(...nodes.map((n) => n.x + n.width), ...[...x].map(([id, v]) => v + width(id)));

  const edges: LaidEdge[] = [];
  for (const [key, { from, to, labels }] of pairs) {
    if (back.has(key)) continue;
    const source = placed.get(from)!;
    const target = placed.get(to)!;
    const points: [number, number][] = [[source.x + source.width / 2, source.y + source.height]];
    for (const waypoint of chains.get(key)!) {
      const at = layer.get(from)! + points.length;
      const cx = x.get(waypoint)! + DUMMY_WIDTH / 2;
      points.push([cx, top(at)], [cx, top(at) + NODE_HEIGHT]);
    }
    points.push([target.x + target.width / 2, target.y]);
    const [x0, labelY] = labelPoint(points[points.length - 2]!, points[points.length - 1]!);
    const label = labels.join(' | ');
    // Kept inside the drawing on the left; the width grows to fit it on the right.
    const labelX = Math.max(x0, labelWidth(label) / 2 + 2);
    edges.push({
      key,
      from,
      to,
      label,
      back: false,
      d: pathThrough(points),
      labelX,
      labelY,
      labelWidth: labelWidth(label),
    });
  }
  // Loops, innermost first: each right of the nodes it passes and of the loops it overlaps.
  const loops = [...pairs].filter(([key]) => back.has(key));
  loops.sort(([, a], [, b]) => span(a, layer) - span(b, layer));
  const lanes: { lo: number; hi: number; x: number }[] = [];
  for (const [key, { from, to, labels }] of loops) {
    const source = placed.get(from)!;
    const target = placed.get(to)!;
    const label = labels.join(' | ');
    const lo = Math.min(layer.get(from)!, layer.get(to)!);
    const hi = Math.max(layer.get(from)!, layer.get(to)!);
    const passed = nodes.filter((n) => n.layer >= lo && n.layer <= hi).map((n) => n.x + n.width);
    const crossed = lanes.filter((l) => l.lo <= hi && lo <= l.hi).map((l) => l.x);
    const lane = Math.max(...passed, ...crossed) + BACK_EDGE_SPACING;
    lanes.push({ lo, hi, x: lane });
    const sy = source.y + source.height / 2;
    const ty = target.y + target.height / 2 - (from === to ? 10 : 0);
    const p0: [number, number] = [source.x + source.width, from === to ? sy + 10 : sy];
    const p3: [number, number] = [target.x + target.width, ty];
    // Control points placed so that the curve's middle (t = 0.5), its rightmost point, is on the lane.
    const c = round((8 * lane - p0[0] - p3[0]) / 6);
    const d = `M${p0[0]},${p0[1]} C${c},${p0[1]} ${c},${p3[1]} ${p3[0]},${p3[1]}`;
    const labelY = round((p0[1] + p3[1]) / 2);
    // The label just right of the curve, clear of the nodes it passes.
    const labelX = round(lane + (label ? labelWidth(label) / 2 + 4 : 0));
    edges.push({ key, from, to, label, back: true, d, labelX, labelY, labelWidth: labelWidth(label) });
    lanes[lanes.length - 1]!.x = labelX + labelWidth(label) / 2;
    right = Math.max(right, labelX + labelWidth(label) / 2);
  }
  for (const e of edges) right = Math.max(right, e.labelX + e.labelWidth / 2);

  return {
    width: Math.ceil(right + MARGIN),
    height: Math.ceil(top(layers.length - 1) + NODE_HEIGHT + MARGIN),
    nodes,
    edges,
  };
}

function labelWidth(label: string): number {
  return label ? Math.ceil(label.length * LABEL_CHAR + 10) : 0;
}

function isWaypoint(id: string): boolean {
  return id.startsWith('\u0000');
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function span(pair: { from: string; to: string }, layer: ReadonlyMap<string, number>): number {
  return Math.abs(layer.get(pair.from)! - layer.get(pair.to)!);
}

function packedWidth(ids: readonly string[], width: (id: string) => number): number {
  return ids.reduce((sum, id) => sum + width(id), 0) + Math.max(0, ids.length - 1) * NODE_GAP;
}

/** The `from→to` keys of the edges a depth-first walk from START (then from any node not reached) finds going back up its stack. */
function findBackEdges(ids: readonly string[], out: ReadonlyMap<string, readonly string[]>): Set<string> {
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string): void => {
    state.set(id, 'open');
    for (const to of out.get(id) ?? []) {
      const s = state.get(to);
      if (s === 'open') back.add(`${id}→${to}`);
      else if (s === undefined) visit(to);
    }
    state.set(id, 'done');
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return back;
}

/** Each node's layer: the length of the longest path to it from a node with no forward predecessor. */
function longestPathLayers(
  ids: readonly string[],
  out: ReadonlyMap<string, readonly string[]>,
  back: ReadonlySet<string>,
): Map<string, number> {
  const indegree = new Map<string, number>(ids.map((id) => [id, 0]));
  const forward = (from: string) => (out.get(from) ?? []).filter((to) => !back.has(`${from}→${to}`));
  for (const id of ids) for (const to of forward(id)) indegree.set(to, indegree.get(to)! + 1);
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  const ready = ids.filter((id) => indegree.get(id) === 0);
  while (ready.length > 0) {
    const id = ready.shift()!;
    for (const to of forward(id)) {
      layer.set(to, Math.max(layer.get(to)!, layer.get(id)! + 1));
      indegree.set(to, indegree.get(to)! - 1);
      if (indegree.get(to) === 0) ready.push(to);
    }
  }
  return layer;
}

/** Orders each layer by the mean position of its neighbours above (sweeping down), then below (sweeping up). */
function orderLayers(
  layers: string[][],
  up: ReadonlyMap<string, readonly string[]>,
  down: ReadonlyMap<string, readonly string[]>,
): void {
  const sweep = (at: number, neighbours: ReadonlyMap<string, readonly string[]>, other: readonly string[]) => {
    const position = new Map(other.map((id, i) => [id, i]));
    const current = layers[at]!;
    const keyed = current.map((id, i) => {
      const near = (neighbours.get(id) ?? []).map((n) => position.get(n)).filter((p) => p !== undefined);
      return { id, key: near.length > 0 ? near.reduce((a, b) => a + b, 0) / near.length : i, i };
    });
    keyed.sort((a, b) => a.key - b.key || a.i - b.i);
    layers[at] = keyed.map((k) => k.id);
  };
  for (let round = 0; round < 3; round++) {
    for (let at = 1; at < layers.length; at++) sweep(at, up, layers[at - 1]!);
    for (let at = layers.length - 2; at >= 0; at--) sweep(at, down, layers[at + 1]!);
  }
  // A last sweep down: the order above decides, so a node sits under its predecessors.
  for (let at = 1; at < layers.length; at++) sweep(at, up, layers[at - 1]!);
}

/**
 * Moves the nodes of a layer towards the centre of their predecessors, keeping their order and
 * at least NODE_GAP between them: once pushed right of their left neighbours, once pushed left of
 * their right neighbours, and placed half way between (which keeps the spacing of both).
 */
function alignUnder(
  layer: readonly string[],
  up: ReadonlyMap<string, readonly string[]>,
  x: Map<string, number>,
  width: (id: string) => number,
): void {
  const wish = layer.map((id) => {
    const above = up.get(id) ?? [];
    if (above.length === 0) return x.get(id)!;
    const centre = above.reduce((sum, p) => sum + x.get(p)! + width(p) / 2, 0) / above.length;
    return centre - width(id) / 2;
  });
  const right = [...wish];
  for (let i = 1; i < layer.length; i++) right[i] = Math.max(wish[i]!, right[i - 1]! + width(layer[i - 1]!) + NODE_GAP);
  const left = [...wish];
  for (let i = layer.length - 2; i >= 0; i--) left[i] = Math.min(wish[i]!, left[i + 1]! - width(layer[i]!) - NODE_GAP);
  layer.forEach((id, i) => x.set(id, (left[i]! + right[i]!) / 2));
}

/** A smooth path through the points: vertical tangents at each, so it leaves and enters nodes straight. */
function pathThrough(points: readonly [number, number][]): string {
  const [first, ...rest] = points;
  let d = `M${round(first![0])},${round(first![1])}`;
  let previous = first!;
  for (const point of rest) {
    const bend = (point[1] - previous[1]) / 2;
    d += ` C${round(previous[0])},${round(previous[1] + bend)} ${round(point[0])},${round(point[1] - bend)} ${round(point[0])},${round(point[1])}`;
    previous = point;
  }
  return d;
}

/** Where on the last curve (into the target) its label goes: past the middle, where fanned-out edges are apart. */
function labelPoint(from: [number, number], to: [number, number]): [number, number] {
  const t = 0.62;
  const towardsTarget = 3 * t * t * (1 - t) + t * t * t;
  return [round(from[0] + (to[0] - from[0]) * towardsTarget), round(from[1] + (to[1] - from[1]) * t)];
}
