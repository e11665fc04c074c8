import { useEffect, useMemo } from 'preact/hooks';
import type { WorkflowSite } from '../model/workflow-graph.js';
import { workflowStatus, type NodeRun, type NodeState } from '../model/workflow-status.js';
import type { WireEvent } from '../types.js';
import { prettyJson } from './format.js';
import { STATUS_WORDS, WorkflowGraphView, type PickedNode } from './workflow-graph-view.js';

/** Props of {@link WorkflowPanel}. */
export interface WorkflowPanelProps {
  sites: readonly WorkflowSite[];
  events: readonly WireEvent[];
  /** The selected event (the latest when undefined): the graph shows the nodes as of it. */
  selected: number | undefined;
  onSelect: (index: number) => void;
  /** True while a run streams: the graph follows the latest event and the stepper waits. */
  running: boolean;
  /** The node whose runs are shown (kept by the page, so it stays picked across tabs). */
  picked: PickedNode | undefined;
  onPick: (picked: PickedNode | undefined) => void;
}

/**
 * The app's graph workflows, drawn with the nodes that ran as of the selected event lit, a stepper
 * to move that event, and the picked node's runs: input, output, route, what it waits for.
 */
export function WorkflowPanel({ sites, events, selected, onSelect, running, picked, onPick }: WorkflowPanelProps) {
  // A node of another app (or of a workflow no longer drawn) is forgotten.
  useEffect(() => {
    if (picked && !sites.some((s) => s.path === picked.site && s.outline.nodes.some((n) => n.name === picked.node)))
      onPick(undefined);
  }, [sites, picked, onPick]);
  const last = events.length - 1;
  const at = selected === undefined ? last : Math.min(selected, last);
  const statuses = useMemo(
    () => sites.map((site) => workflowStatus(site.path, site.outline, events, at)),
    [sites, events, at],
  );
  const pickedAt = picked ? sites.findIndex((s) => s.path === picked.site) : -1;
  const pickedState = picked && pickedAt >= 0 ? statuses[pickedAt]!.nodes.get(picked.node) : undefined;
  const pickedNode =
    picked && pickedAt >= 0 ? sites[pickedAt]!.outline.nodes.find((n) => n.name === picked.node) : undefined;

  return (
    <section class="panel workflow" aria-labelledby="workflow-heading">
      <div class="panel-head">
        <h2 id="workflow-heading">Workflow graph</h2>
        <div class="replay" role="group" aria-label="Graph as of event">
          <button
            type="button"
            class="small"
            disabled={running || at <= 0}
            onClick={() => onSelect(Math.max(0, at - 1))}
          >
            ◀ Prev
          </button>
          <span class="wf-at" data-testid="graph-event">
            {events.length === 0
              ? 'no events'
              : selected === undefined || at === last
                ? `latest event (#${at + 1})`
                : `event #${at + 1} of ${events.length}`}
          </span>
          <button
            type="button"
            class="small"
            disabled={running || selected === undefined || at >= last}
            onClick={() => onSelect(Math.min(last, at + 1))}
          >
            Next ▶
          </button>
        </div>
      </div>
      <p class="wf-legend small-text" aria-label="Legend">
        {(['finished', 'running', 'waiting', 'failed', 'idle'] as const).map((s) => (
          <span key={s} class={`wf-legend-item ${s}`}>
            <span class="wf-swatch" aria-hidden="true">
              {STATUS_WORDS[s].mark}
            </span>
            {STATUS_WORDS[s].word}
          </span>
        ))}
      </p>
      <div class="wf-body">
        {sites.map((site, i) => (
          <WorkflowGraphView
            key={site.path}
            site={site}
            index={i}
            status={statuses[i]!}
            picked={picked}
            onPick={onPick}
          />
        ))}
        {picked && pickedNode ? (
          <NodeDetail
            name={picked.node}
            path={`${picked.site}.${picked.node}`}
            kind={pickedNode.kind}
            description={pickedNode.description}
            state={pickedState}
            at={at}
            onSelect={onSelect}
          />
        ) : (
          <p class="empty">Click a node (or Tab to it and press Enter) to see its input and output.</p>
        )}
      </div>
    </section>
  );
}

function NodeDetail({
  name,
  path,
  kind,
  description,
  state,
  at,
  onSelect,
}: {
  name: string;
  path: string;
  kind: string;
  description: string;
  state: NodeState | undefined;
  at: number;
  onSelect: (index: number) => void;
}) {
  const status = state?.status ?? 'idle';
  const runs = state?.runs ?? [];
  return (
    <section class="wf-detail" aria-labelledby="wf-detail-heading" data-node={name}>
      <h3 id="wf-detail-heading">
        Node {name} <span class="kind">{kind}</span>{' '}
        <span class={`wf-status ${status}`} data-status={status}>
          {STATUS_WORDS[status].word}
        </span>
      </h3>
      <p class="muted small-text">
        <code>{path}</code>
        {description ? ` · ${description}` : ''}
      </p>
      {runs.length === 0 ? (
        <p class="empty">Not run as of event #{at + 1}.</p>
      ) : (
        runs.map((run) => <RunView key={run.runId} title={`Run ${run.runId}`} run={run} onSelect={onSelect} />)
      )}
      {state && state.children.length > 0 && (
        <>
          <h4>Runs it started ({state.children.length})</h4>
          <ul class="wf-children">
            {state.children.map((child) => (
              <li key={child.name} data-child={child.name} data-status={child.status}>
                <details>
                  <summary>
                    <code>{child.name}</code>{' '}
                    <span class={`wf-status ${child.status}`}>{STATUS_WORDS[child.status].word}</span>
                  </summary>
                  {child.runs.map((run, i) => (
                    <RunView key={i} title={`${child.name}`} run={run} onSelect={onSelect} />
                  ))}
                </details>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function RunView({ title, run, onSelect }: { title: string; run: NodeRun; onSelect: (index: number) => void }) {
  return (
    <div class="wf-run" data-run={run.runId} data-status={run.status}>
      <h4>
        {title}
        {run.attempt > 1 ? `, try ${run.attempt}` : ''}: {STATUS_WORDS[run.status].word}{' '}
        <span class="wf-run-events">
          <button type="button" class="link small-text" onClick={() => onSelect(run.startIndex)}>
            event #{run.startIndex + 1}
          </button>
          {run.endIndex !== undefined && (
            <>
              {' → '}
              <button type="button" class="link small-text" onClick={() => onSelect(run.endIndex!)}>
                #{run.endIndex + 1}
              </button>
            </>
          )}
        </span>
      </h4>
      <dl class="wf-io">
        <dt>Input</dt>
        <dd>{run.hasInput ? <pre class="json">{prettyJson(run.input)}</pre> : <span class="muted">(none)</span>}</dd>
        <dt>Output</dt>
        <dd>
          {run.hasOutput ? (
            <pre class="json">{prettyJson(run.output)}</pre>
          ) : (
            <span class="muted">{run.status === 'finished' ? '(none)' : '(not yet)'}</span>
          )}
        </dd>
        {run.route !== undefined && (
          <>
            <dt>Route</dt>
            <dd>
              <code>{Array.isArray(run.route) ? run.route.map(String).join(', ') : String(run.route)}</code>
            </dd>
          </>
        )}
        {run.waitingFor !== undefined && (
          <>
            <dt>Waiting for</dt>
            <dd>{run.waitingFor}</dd>
          </>
        )}
        {run.errors.length > 0 && (
          <>
            <dt>Errors</dt>
            <dd>
              <ul class="wf-errors">
                {run.errors.map((error, i) => (
                  <li key={i} class="error-text">
                    {error}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}
