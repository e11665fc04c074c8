import { useMemo } from 'preact/hooks';
import { layoutWorkflow, type LaidNode } from '../model/graph-layout.js';
import { nodeSubtitle, START, type WorkflowSite } from '../model/workflow-graph.js';
import type { NodeState, NodeStatus, WorkflowStatus } from '../model/workflow-status.js';

/** A node picked in a drawing: the workflow's path and the node's name. */
export interface PickedNode {
  site: string;
  node: string;
}

/** Props of {@link WorkflowGraphView}. */
export interface WorkflowGraphViewProps {
  site: WorkflowSite;
  /** Which drawing this is on the page (for unique ids). */
  index: number;
  status: WorkflowStatus;
  picked: PickedNode | undefined;
  onPick: (picked: PickedNode) => void;
}

/** The mark before a node's name, and the word for its status (also read out). */
export const STATUS_WORDS: Record<NodeStatus, { mark: string; word: string }> = {
  idle: { mark: '', word: 'not run' },
  running: { mark: '▶', word: 'running' },
  waiting: { mark: '‖', word: 'waiting for input' },
  finished: { mark: '✓', word: 'finished' },
  failed: { mark: '✕', word: 'failed' },
};

/**
 * One workflow drawn as SVG, top to bottom from START: each node a box (its name, kind and status
 * mark; lit when running, waiting, finished or failed), each edge a curve with its routes, loops
 * curving back on the right, the edges taken drawn stronger. Nodes are buttons: click one, or
 * focus it with Tab and press Enter or Space, to show its runs.
 */
export function WorkflowGraphView({ site, index, status, picked, onPick }: WorkflowGraphViewProps) {
  const layout = useMemo(() => layoutWorkflow(site.outline), [site.outline]);
  const byName = useMemo(() => new Map(site.outline.nodes.map((n) => [n.name, n])), [site.outline]);
  const arrow = `wf-arrow-${index}`;
  const counts = new Map<NodeStatus, number>();
  for (const state of status.nodes.values()) counts.set(state.status, (counts.get(state.status) ?? 0) + 1);
  const summary = (['running', 'waiting', 'failed', 'finished'] as const)
    .filter((s) => counts.get(s))
    .map((s) => `${counts.get(s)} ${STATUS_WORDS[s].word}`)
    .join(', ');

  const pick = (node: string) => onPick({ site: site.path, node });
  return (
    <figure class="wf-figure" data-workflow={site.path}>
      <figcaption>
        <strong>{site.agent}</strong>
        {site.path !== site.agent && (
          <span class="muted">
            {' '}
            at <code>{site.path}</code>
          </span>
        )}
        <span class="muted wf-summary" data-testid="workflow-summary">
          {' '}
          · {summary || 'nothing run yet'}
          {status.ended ? ' · ended' : ''}
        </span>
      </figcaption>
      <div class="wf-scroll">
        <svg
          class="wf-svg"
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="group"
          aria-label={`Graph of workflow ${site.agent}`}
        >
          <defs>
            {['', '-taken'].map((kind) => (
              <marker
                key={kind}
                id={`${arrow}${kind}`}
                class={`wf-arrowhead${kind}`}
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerUnits="userSpaceOnUse"
                markerWidth="9"
                markerHeight="9"
                orient="auto-start-reverse"
              >
                <path d="M0,0 L10,5 L0,10 z" />
              </marker>
            ))}
          </defs>
          <g aria-hidden="true">
            {layout.edges.map((edge) => {
              const taken = status.taken.has(edge.key);
              return (
                <g
                  key={edge.key}
                  class={`wf-edge${taken ? ' taken' : ''}${edge.back ? ' back' : ''}`}
                  data-edge={edge.key}
                  data-label={edge.label}
                >
                  <path d={edge.d} marker-end={`url(#${arrow}${taken ? '-taken' : ''})`} />
                </g>
              );
            })}
          </g>
          {layout.nodes.map((laid) =>
            laid.id === START ? (
              <g key={laid.id} class="wf-start" transform={`translate(${laid.x},${laid.y})`} aria-label="START">
                <rect width={laid.width} height={laid.height} rx={laid.height / 2} />
                <text x={laid.width / 2} y={laid.height / 2 + 4} text-anchor="middle">
                  START
                </text>
              </g>
            ) : (
              <NodeBox
                key={laid.id}
                laid={laid}
                subtitle={byName.has(laid.id) ? nodeSubtitle(byName.get(laid.id)!) : 'node'}
                description={byName.get(laid.id)?.description ?? ''}
                state={status.nodes.get(laid.id)}
                selected={picked?.site === site.path && picked.node === laid.id}
                onPick={() => pick(laid.id)}
              />
            ),
          )}
          {/* Labels last, so that no edge or node is drawn over them. */}
          <g class="wf-labels" aria-hidden="true">
            {layout.edges
              .filter((edge) => edge.label)
              .map((edge) => (
                <g
                  key={edge.key}
                  class={`wf-edge-label${status.taken.has(edge.key) ? ' taken' : ''}`}
                  data-edge={edge.key}
                  transform={`translate(${edge.labelX},${edge.labelY})`}
                >
                  <title>{`${edge.from} → ${edge.to}: ${edge.label}`}</title>
                  <rect x={-edge.labelWidth / 2} y={-9} width={edge.labelWidth} height={18} rx={9} />
                  <text y={4} text-anchor="middle">
                    {edge.label}
                  </text>
                </g>
              ))}
          </g>
        </svg>
      </div>
      <ul class="visually-hidden" aria-label={`Edges of ${site.agent}`}>
        {layout.edges.map((edge) => (
          <li key={edge.key}>
            {edge.from} to {edge.to}
            {edge.label ? ` (${edge.label})` : ''}
            {edge.back ? ', loops back' : ''}
            {status.taken.has(edge.key) ? ', taken' : ''}
          </li>
        ))}
      </ul>
    </figure>
  );
}

function NodeBox({
  laid,
  subtitle,
  description,
  state,
  selected,
  onPick,
}: {
  laid: LaidNode;
  subtitle: string;
  description: string;
  state: NodeState | undefined;
  selected: boolean;
  onPick: () => void;
}) {
  const status = state?.status ?? 'idle';
  const { mark, word } = STATUS_WORDS[status];
  const runs = state?.runs.length ?? 0;
  const label = `${laid.id}, ${subtitle} node, ${word}${runs > 1 ? `, ${runs} runs` : ''}`;
  return (
    <g
      class={`wf-node ${status}${selected ? ' selected' : ''}`}
      data-node={laid.id}
      data-status={status}
      transform={`translate(${laid.x},${laid.y})`}
      role="button"
      tabindex={0}
      aria-label={label}
      aria-pressed={selected}
      onClick={onPick}
      onKeyDown={(event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          onPick();
        }
      }}
    >
      <title>{description ? `${laid.id}: ${description}` : laid.id}</title>
      <rect class="wf-box" width={laid.width} height={laid.height} rx={7} />
      <text class="wf-name" x={12} y={19}>
        {mark && <tspan class="wf-mark">{mark} </tspan>}
        {clip(laid.id, laid.width - (mark ? 40 : 24), 7.8)}
      </text>
      <text class="wf-kind" x={12} y={36}>
        {clip(subtitle, laid.width - 20, 6.4)}
      </text>
      {runs > 1 && (
        <g class="wf-runs" transform={`translate(${laid.width - 4},4)`}>
          <rect x={-26} width={24} height={15} rx={7} />
          <text x={-14} y={11} text-anchor="middle">
            ×{runs}
          </text>
        </g>
      )}
    </g>
  );
}

/** Text cut with an ellipsis to about `width` pixels, at `perChar` pixels a character. */
function clip(text: string, width: number, perChar: number): string {
  const fits = Math.max(3, Math.floor(width / perChar));
  return text.length <= fits ? text : `${text.slice(0, fits - 1)}…`;
}
