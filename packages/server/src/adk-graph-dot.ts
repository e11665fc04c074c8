import { ADK_START, adkNodeType, adkRoute, workflowChild, type AdkNodeType } from './adk-graph.js';
import type { AgentGraphNode, WorkflowOutline } from './graph.js';

/**
 * The app's graph as Graphviz DOT, for ADK's web UI (which renders `dotSrc` itself). Each graph
 * workflow is a level of its own, keyed as ADK's dev server keys them (names joined by `/` from
 * the root); the root is a level even when it is an agent tree (agents, their sub-agents and
 * tools). In a workflow level a node's DOT id is its `nodeInfo.path` (`triage.classify`), and
 * START is `__START__`, so the UI, which looks nodes up by the path of the selected event, lights
 * the node that event came from; an agent tree's nodes are named by their agents, the events'
 * authors.
 */

/** One drawable level: a graph workflow, or the root agent tree. */
export interface GraphLevel {
  /** ADK's key: the names from the root down, joined by `/` (`outer/inner`). */
  key: string;
  agent: AgentGraphNode;
  /** What the level's node paths start with: the workflow's own `nodeInfo.path`. */
  path: string;
}

/** What to light in a level: DOT node ids, and edges as `from -> to` ids. */
export interface Highlight {
  nodes: ReadonlySet<string>;
  edges: ReadonlySet<string>;
}

/** The root level, then every graph workflow below it, outermost first. */
export function graphLevels(root: AgentGraphNode): GraphLevel[] {
  const levels: GraphLevel[] = [{ key: root.name, agent: root, path: root.name }];
  const seen = new Set<AgentGraphNode>([root]);
  const visit = (agent: AgentGraphNode, key: string, path: string): void => {
    const below: [AgentGraphNode, string, string][] = [];
    if (agent.workflow) {
      for (const node of agent.workflow.nodes) {
        const child = workflowChild(agent, node);
        if (child) below.push([child, `${key}/${node.name}`, `${path}.${node.name}`]);
      }
    } else {
      // A workflow that is a sub-agent (not a node) runs under its own name.
      for (const child of agent.children) below.push([child, `${key}/${child.name}`, child.name]);
    }
    for (const [child, childKey, childPath] of below) {
      if (seen.has(child)) continue;
      seen.add(child);
      if (child.workflow) levels.push({ key: childKey, agent: child, path: childPath });
      visit(child, childKey, childPath);
    }
  };
  visit(root, root.name, root.name);
  return levels;
}

/** The DOT node id of a workflow level's node. */
export function nodeId(level: GraphLevel, name: string): string {
  return name === 'START' ? ADK_START : `${level.path}.${name}`;
}

const PALETTES = {
  dark: {
    background: '#0F172A',
    fill: '#1E293B',
    border: '#475569',
    text: '#F8FAFC',
    edge: '#94A3B8',
    edgeText: '#CBD5E1',
    start: '#059669',
    end: '#DC2626',
  },
  light: {
    background: '#F8FAFC',
    fill: '#FFFFFF',
    border: '#94A3B8',
    text: '#0F172A',
    edge: '#64748B',
    edgeText: '#475569',
    start: '#10B981',
    end: '#EF4444',
  },
};
const LIT = { node: '#0F5223', text: '#cccccc', edge: '#69CB87' };
const ICONS: Record<Exclude<AdkNodeType, 'start'>, { icon: string; color: string }> = {
  agent: { icon: '\u2726', color: '#42A5F5' },
  workflow: { icon: '\u22B7', color: '#9333EA' },
  function: { icon: '\u0192', color: '#10B981' },
  join: { icon: '\u2335', color: '#F59E0B' },
  tool: { icon: '\u{1F527}', color: '#6B7280' },
};

type Attributes = Record<string, string | number>;

/** One level as DOT. */
export function levelDot(level: GraphLevel, dark: boolean, highlight?: Highlight): string {
  const palette = dark ? PALETTES.dark : PALETTES.light;
  const lines: string[] = [
    `digraph ${quote(level.agent.name)} {`,
    `  graph ${attributes({ bgcolor: palette.background, pad: 0.5, nodesep: 0.5, ranksep: 0.8, fontname: 'Helvetica', splines: 'spline' })};`,
    `  node ${attributes({ shape: 'rect', style: 'rounded,filled', fillcolor: palette.fill, color: palette.border, penwidth: 1.5, fontname: 'Helvetica', fontcolor: palette.text, fontsize: 12, margin: '0.25,0.15' })};`,
    `  edge ${attributes({ color: palette.edge, penwidth: 1.2, fontname: 'Helvetica', fontcolor: palette.edgeText, fontsize: 10, arrowhead: 'vee', arrowsize: 0.7 })};`,
  ];
  const node = (id: string, attrs: Attributes): void => {
    const lit: Attributes = highlight?.nodes.has(id)
      ? { fillcolor: LIT.node, color: LIT.node, fontcolor: LIT.text }
      : {};
    lines.push(`  ${quote(id)} ${attributes({ ...attrs, ...lit })};`);
  };
  const edge = (from: string, to: string, attrs: Attributes = {}): void => {
    const lit: Attributes = highlight?.edges.has(`${from} -> ${to}`) ? { color: LIT.edge, penwidth: 2.5 } : {};
    lines.push(`  ${quote(from)} -> ${quote(to)} ${attributes({ ...attrs, ...lit })};`);
  };
  const ends = { start: palette.start, end: palette.end, text: palette.text };
  if (level.agent.workflow) drawWorkflow(level, level.agent.workflow, node, edge, ends);
  else drawAgentTree(level.agent, node, edge);
  lines.push('}');
  return lines.join('\n');
}

function drawWorkflow(
  level: GraphLevel,
  outline: WorkflowOutline,
  node: (id: string, attrs: Attributes) => void,
  edge: (from: string, to: string, attrs?: Attributes) => void,
  colors: { start: string; end: string; text: string },
): void {
  const terminal = (name: string) => !outline.edges.some((e) => e.from === name);
  const point = (id: string, label: string, fill: string) =>
    node(id, {
      label,
      shape: 'oval',
      style: 'filled',
      fillcolor: fill,
      color: fill,
      fontcolor: colors.text,
      fontname: 'Helvetica-Bold',
      width: 0.9,
      fixedsize: 'true',
    });
  point(ADK_START, 'START', colors.start);
  for (const n of outline.nodes) {
    const child = workflowChild(level.agent, n);
    const type: Exclude<AdkNodeType, 'start'> =
      child?.workflow || child?.type === 'workflow' ? 'workflow' : adkNodeType(n);
    const routed = outline.edges.some((e) => e.from === n.name && (e.routes !== undefined || e.default));
    const attrs: Attributes = {
      label: label(n.name, type, n.parallelWorker ? 'per item' : undefined),
      tooltip: n.description || type,
    };
    if (routed) Object.assign(attrs, { shape: 'diamond', style: 'filled', margin: '0.0,0.0' });
    else if (type === 'join') Object.assign(attrs, { shape: 'oval', style: 'filled' });
    else if (type === 'tool') attrs.style = 'rounded,filled,dashed';
    if (n.parallelWorker && !routed) attrs.shape = 'box3d';
    node(nodeId(level, n.name), attrs);
  }
  for (const e of outline.edges) {
    const route = adkRoute(e);
    const text = [
      Array.isArray(route) ? route.join(', ') : route,
      e.maxIterations !== undefined ? `max ${e.maxIterations}×` : undefined,
    ]
      .filter((t) => t !== undefined)
      .join(' · ');
    edge(nodeId(level, e.from), nodeId(level, e.to), text ? { label: `  ${text}` } : {});
  }
  const last = outline.nodes.filter((n) => terminal(n.name));
  if (last.length === 0) return;
  point('__END__', 'END', colors.end);
  for (const n of last) edge(nodeId(level, n.name), '__END__');
}

function drawAgentTree(
  root: AgentGraphNode,
  node: (id: string, attrs: Attributes) => void,
  edge: (from: string, to: string, attrs?: Attributes) => void,
): void {
  const drawn = new Set<string>();
  const visit = (agent: AgentGraphNode): void => {
    if (drawn.has(agent.name)) return;
    drawn.add(agent.name);
    const type: AdkNodeType = agent.type === 'workflow' ? 'workflow' : 'agent';
    node(agent.name, { label: label(agent.name, type), tooltip: agent.description || agent.class });
    for (const tool of agent.tools) {
      if (!drawn.has(tool.name)) {
        drawn.add(tool.name);
        node(tool.name, {
          label: label(tool.name, 'tool'),
          tooltip: tool.description || 'tool',
          style: 'rounded,filled,dashed',
        });
      }
      edge(agent.name, tool.name, { style: 'dashed' });
    }
    // A workflow's agents are drawn in its own level.
    if (agent.workflow) return;
    for (const child of agent.children) {
      visit(child);
      edge(agent.name, child.name);
    }
  };
  visit(root);
}

function label(name: string, type: Exclude<AdkNodeType, 'start'>, note?: string): string {
  const { icon, color } = ICONS[type];
  const extra = note ? `<br/><FONT POINT-SIZE="10">${escapeHtml(note)}</FONT>` : '';
  return `<<FONT COLOR="${color}" POINT-SIZE="14">${icon}</FONT> ${escapeHtml(name)}${extra}>`;
}

function attributes(attrs: Attributes): string {
  const list = Object.entries(attrs).map(([key, value]) => {
    if (typeof value === 'number') return `${key}=${value}`;
    // An HTML label (<...>) goes unquoted; everything else is a quoted string.
    return key === 'label' && value.startsWith('<') ? `${key}=${value}` : `${key}=${quote(value)}`;
  });
  return `[${list.join(', ')}]`;
}

function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
