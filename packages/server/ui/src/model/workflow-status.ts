import type { WireEvent, WorkflowOutline } from '../types.js';
import { START } from './workflow-graph.js';

/** Where a node stands as of the selected event. */
export type NodeStatus = 'idle' | 'running' | 'waiting' | 'finished' | 'failed';

/** One run of a node (one `runId`), as its events tell it. */
export interface NodeRun {
  runId: string;
  /** Its latest try (1-based). */
  attempt: number;
  status: Exclude<NodeStatus, 'idle'>;
  /** Index of its first start event in the session. */
  startIndex: number;
  /** Index of its end event. */
  endIndex?: number;
  /** Its input as its start record has it (absent when it got none). */
  input?: unknown;
  hasInput: boolean;
  output?: unknown;
  hasOutput: boolean;
  route?: unknown;
  /** What it asks while it waits for a human (the request's message, or the tool asking). */
  waitingFor?: string;
  /** Why its failed tries failed, then why the run failed when it did. */
  errors: string[];
}

/** A node's runs up to the selected event; its status is its latest run's. */
export interface NodeState {
  status: NodeStatus;
  runs: NodeRun[];
  /** The runs the node made itself: `ctx.runNode` children and `parallelWorker` items (`step@1`), in order. */
  children: { name: string; status: NodeStatus; runs: NodeRun[] }[];
}

/** The nodes of one workflow as of the selected event. */
export interface WorkflowStatus {
  /** The invocation shown: the latest that ran a node of the workflow, at or before the event. */
  invocationId: string | undefined;
  /** Every node of the outline, with its runs. */
  nodes: Map<string, NodeState>;
  /** The edges taken (`from→to`): a run of the target started after the source ended (START: after the workflow began). */
  taken: Set<string>;
  /** The workflow stored its final event. */
  ended: boolean;
}

/**
 * What a workflow's nodes did up to event `upTo` (inclusive; the latest event when undefined), read
 * from their records: a node run's start event (`agentState {node:'started', input}`), its end
 * (`{node:'ended'}` with `output` and `route`), a failed try (`{node:'failed'}`), and the
 * workflow's final event (`{workflow:'ended'}`), under `nodeInfo.path` `<workflow path>.<node>`.
 * A run is *finished* once it has an end; *waiting* when an interrupt at its path (or below it)
 * followed its start and no answer came after; *failed* when the invocation stored an error after
 * its start; *running* otherwise. Only the latest invocation that ran the workflow counts, so an
 * earlier turn's runs are not shown as this one's. Runs below a node (`<node>.<child>@<id>`) are
 * its children; deeper paths belong to a nested workflow (read with its own path).
 */
export function workflowStatus(
  workflowPath: string,
  outline: WorkflowOutline,
  events: readonly WireEvent[],
  upTo?: number,
): WorkflowStatus {
  const last = Math.min(upTo ?? events.length - 1, events.length - 1);
  const prefix = `${workflowPath}.`;
  const nodes = new Map<string, NodeState>(outline.nodes.map((n) => [n.name, emptyState()]));
  const status: WorkflowStatus = { invocationId: undefined, nodes, taken: new Set(), ended: false };
  for (let i = last; i >= 0 && status.invocationId === undefined; i--) {
    const path = events[i]!.nodeInfo?.path;
    if (path !== undefined && (path === workflowPath || path.startsWith(prefix)))
      status.invocationId = events[i]!.invocationId;
  }
  if (status.invocationId === undefined) return status;

  interface Tracked {
    run: NodeRun;
    path: string;
    interruptAt?: number;
    answeredAt?: number;
  }
  const byKey = new Map<string, Tracked>();
  const tracked: Tracked[] = [];
  let failedAt: { index: number; message: string } | undefined;
  for (let i = 0; i <= last; i++) {
    const event = events[i]!;
    if (event.invocationId !== status.invocationId || event.partial) continue;
    const record = event.actions.agentState;
    // A user event after an interrupt answers it: the resume record, or a message.
    if (event.author === 'user') {
      for (const t of tracked) if (t.interruptAt !== undefined && t.answeredAt === undefined) t.answeredAt = i;
      continue;
    }
    if (event.errorCode && record?.node !== 'failed' && failedAt === undefined)
      failedAt = { index: i, message: `${event.errorCode}: ${event.errorMessage ?? ''}`.trim() };
    const info = event.nodeInfo;
    if (!info) continue;
    if (info.path === workflowPath && record?.workflow === 'ended') status.ended = true;
    if (!info.path.startsWith(prefix)) continue;
    if (event.interrupt) {
      // Interrupts belong to every open run at the event's path or above it.
      for (const t of tracked)
        if (t.run.endIndex === undefined && (info.path === t.path || info.path.startsWith(`${t.path}.`))) {
          t.interruptAt = i;
          t.answeredAt = undefined;
          t.run.waitingFor = event.interrupt.message ?? `${event.interrupt.toolName} (${event.interrupt.kind})`;
        }
    }
    if (info.runId === undefined || typeof record?.node !== 'string') continue;
    const segments = info.path.slice(prefix.length).split('.');
    const state = nodes.get(segments[0]!);
    // Deeper paths are a nested workflow's, or a child's own children.
    if (!state || segments.length > 2 || (segments.length === 2 && !segments[1]!.includes('@'))) continue;
    const key = `${info.path}#${info.runId}`;
    let current = byKey.get(key);
    // A run that returned at once stored no start record: its end record (with its input) opens it too.
    const alone = record.node === 'ended' && (!current || current.run.endIndex !== undefined);
    if (record.node === 'started' || alone) {
      if (current && current.run.endIndex === undefined) {
        current.run.attempt = info.attempt ?? current.run.attempt + 1;
        continue;
      }
      const run: NodeRun = {
        runId: info.runId,
        attempt: info.attempt ?? 1,
        status: 'running',
        startIndex: i,
        hasInput: 'input' in record,
        hasOutput: false,
        errors: [],
      };
      if ('input' in record) run.input = record.input;
      current = { run, path: info.path };
      byKey.set(key, current);
      tracked.push(current);
      if (segments.length === 1) state.runs.push(run);
      else {
        const name = segments[1]!;
        let child = state.children.find((c) => c.name === name);
        if (!child) state.children.push((child = { name, status: 'running', runs: [] }));
        child.runs.push(run);
      }
    }
    if (current && record.node === 'ended') {
      current.run.endIndex = i;
      if ('output' in event) {
        current.run.output = event.output;
        current.run.hasOutput = true;
      }
      if (event.route !== undefined) current.run.route = event.route;
    } else if (current && record.node === 'failed') {
      current.run.errors.push(event.errorMessage ?? event.errorCode ?? 'failed');
    }
  }

  for (const t of tracked) {
    const run = t.run;
    if (run.endIndex !== undefined) {
      run.status = 'finished';
      delete run.waitingFor;
    } else if (t.interruptAt !== undefined && t.answeredAt === undefined) run.status = 'waiting';
    else if (failedAt && failedAt.index > run.startIndex) {
      run.status = 'failed';
      run.errors.push(failedAt.message);
    } else {
      run.status = 'running';
      delete run.waitingFor;
    }
  }
  for (const state of nodes.values()) {
    state.status = state.runs.at(-1)?.status ?? 'idle';
    for (const child of state.children) child.status = child.runs.at(-1)!.status;
  }

  for (const edge of outline.edges) {
    const target = nodes.get(edge.to);
    if (!target || target.runs.length === 0) continue;
    if (edge.from === START) {
      status.taken.add(`${edge.from}→${edge.to}`);
      continue;
    }
    const ends = (nodes.get(edge.from)?.runs ?? []).flatMap((r) => (r.endIndex === undefined ? [] : [r.endIndex]));
    if (ends.length > 0 && target.runs.some((r) => r.startIndex > Math.min(...ends)))
      status.taken.add(`${edge.from}→${edge.to}`);
  }
  return status;
}

function emptyState(): NodeState {
  return { status: 'idle', runs: [], children: [] };
}
