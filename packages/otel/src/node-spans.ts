import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import type { Event, InterruptInfo, Route } from '@troupe/core';
import { ATTR } from './attributes.js';
import { jsonText } from './content.js';
import { markError, SpanNode, type InvocationTrace, type Outcome } from './span-tree.js';

/** Where the node runs of one workflow run go, and which events are theirs. */
export interface NodeScope {
  /** The span the node runs go under: the workflow agent's, or the invocation's. */
  readonly parent: SpanNode;
  /** The workflow agent's path and branch, which its node records are stamped with; unset: any workflow's records. */
  readonly workflow?: { readonly path: string; readonly branch: string };
  /** The invocation the records belong to. */
  readonly invocationId: string;
}

/** What the records say of one node run. */
interface NodeRun {
  readonly path: string;
  readonly runId: string;
  start: Event | undefined;
  end: Event | undefined;
  /** The first record of the run in these events (its start, unless it resumed). */
  readonly first: Event;
  attempt: number;
  readonly failures: Event[];
  interrupt: InterruptInfo | undefined;
}

/**
 * One span per graph workflow node run, `invoke_node <name>`, made from the node records its
 * workflow stored (SPEC §17): the start record (`actions.agentState.node === 'started'`, one per
 * try; a run that returned at once has none, and its end record marked `alone` stands for it) dates
 * its start and gives its attempt, a failed try (`'failed'`) is an event on it, the end
 * record (`'ended'`, with its output and route) dates its end. Spans are made when the workflow
 * agent ends (so the plugin needs no per-event hook), dated by the records' timestamps; a run
 * still open then (paused for input, cut short by a failure or cancellation) ends with `ending`.
 * A `ctx.runNode` child or a parallel worker's item goes under the node run that ran it.
 *
 * `events` are the session's (or the run's) events, read from index `from`; records already traced
 * are skipped, and those traced here are remembered in `run.tracedRecords`.
 */
export function traceNodeRuns(
  run: InvocationTrace,
  events: readonly Event[],
  from: number,
  scope: NodeScope,
  ending: Outcome,
  captureContent: boolean,
): void {
  const runs = collectRuns(run, events, from, scope);
  if (runs.length === 0) return;
  const resumedAt = events[from]?.timestamp ?? Date.now();
  const spans = new Map<string, SpanNode>();
  for (const nodeRun of runs) {
    const parent = enclosingSpan(nodeRun.path, spans) ?? scope.parent;
    const span = startSpan(run, parent, nodeRun, resumedAt, captureContent);
    spans.set(nodeRun.path, new SpanNode(span, undefined));
    for (const failure of nodeRun.failures) {
      const attributes: Attributes = { [ATTR.nodeAttempt]: failure.nodeInfo?.attempt ?? 1 };
      if (failure.errorCode) attributes[ATTR.errorType] = failure.errorCode;
      if (failure.errorMessage) attributes['exception.message'] = failure.errorMessage;
      span.addEvent('troupe.node.try_failed', attributes, failure.timestamp);
    }
    if (nodeRun.interrupt)
      span.setAttributes({ [ATTR.interruptId]: nodeRun.interrupt.id, [ATTR.interruptKind]: nodeRun.interrupt.kind });
    const end = nodeRun.end;
    if (end) {
      if (end.route !== undefined) span.setAttribute(ATTR.nodeRoute, routeAttribute(end.route));
      if ((end.actions.agentState as { waiting?: unknown }).waiting === true) span.setAttribute(ATTR.nodeWaiting, true);
      if (captureContent && end.output !== undefined) span.setAttribute(ATTR.nodeOutput, jsonText(end.output));
      span.end(end.timestamp);
      continue;
    }
    span.setAttribute(ATTR.endReason, ending.reason);
    if (ending.error !== undefined) markError(span, ending.error);
    span.end();
  }
}

/** The node runs of these events, in the order they started (or first showed, when resumed). */
function collectRuns(run: InvocationTrace, events: readonly Event[], from: number, scope: NodeScope): NodeRun[] {
  const runs: NodeRun[] = [];
  // Open runs by `path#runId`; a node looped back to runs again under the same key once this one ended.
  const open = new Map<string, NodeRun>();
  const interrupts: Event[] = [];
  for (let i = from; i < events.length; i++) {
    const event = events[i]!;
    const info = event.nodeInfo;
    if (!info || info.runId === undefined || event.invocationId !== scope.invocationId) continue;
    if (event.interrupt) {
      interrupts.push(event);
      continue;
    }
    const record = event.actions.agentState?.node;
    if (record !== 'started' && record !== 'ended' && record !== 'failed') continue;
    if (scope.workflow && (event.path !== scope.workflow.path || event.branch !== scope.workflow.branch)) continue;
    if (run.tracedRecords.has(event.id)) continue;
    run.tracedRecords.add(event.id);
    const key = `${info.path}#${info.runId}`;
    let nodeRun = open.get(key);
    if (!nodeRun) {
      nodeRun = {
        path: info.path,
        runId: info.runId,
        start: undefined,
        end: undefined,
        first: event,
        attempt: 1,
        failures: [],
        interrupt: undefined,
      };
      open.set(key, nodeRun);
      runs.push(nodeRun);
    }
    nodeRun.attempt = Math.max(nodeRun.attempt, info.attempt ?? 1);
    // A run that returned at once has one record, its end, which dates (and gives the input of) its start too.
    if (record === 'started' || (event.actions.agentState as { alone?: boolean }).alone === true)
      nodeRun.start ??= event;
    if (record === 'failed') nodeRun.failures.push(event);
    else if (record === 'ended') {
      nodeRun.end = event;
      open.delete(key);
    }
  }
  // A question a node asked (its RequestInput, or a tool's in an agent node) names the run it paused.
  for (const event of interrupts) {
    const nodeRun = open.get(`${event.nodeInfo!.path}#${event.nodeInfo!.runId}`);
    if (nodeRun) nodeRun.interrupt = event.interrupt;
  }
  return runs;
}

function startSpan(
  run: InvocationTrace,
  parent: SpanNode,
  nodeRun: NodeRun,
  resumedAt: number,
  captureContent: boolean,
): Span {
  const name = nodeName(nodeRun.path);
  const attributes: Attributes = {
    [ATTR.operationName]: 'invoke_node',
    [ATTR.nodeName]: name,
    [ATTR.nodePath]: nodeRun.path,
    [ATTR.nodeRunId]: nodeRun.runId,
    [ATTR.nodeAttempt]: nodeRun.attempt,
    // The workflow whose node it is, as model and tool spans name their agent.
    [ATTR.agentName]: nodeRun.first.path.slice(nodeRun.first.path.lastIndexOf('/') + 1),
    [ATTR.agentPath]: nodeRun.first.path,
  };
  // A run that began before this invocation paused has no start record here: it resumed.
  if (!nodeRun.start) attributes[ATTR.nodeResumed] = true;
  const input = (nodeRun.start?.actions.agentState as { input?: unknown } | undefined)?.input;
  if (captureContent && input !== undefined) attributes[ATTR.nodeInput] = jsonText(input);
  const startTime = nodeRun.start?.timestamp ?? resumedAt;
  return run.startSpan(`invoke_node ${name}`, SpanKind.INTERNAL, parent, attributes, startTime);
}

/** The span of the node run whose path is the longest proper prefix of `path` (by `.` segments). */
function enclosingSpan(path: string, spans: ReadonlyMap<string, SpanNode>): SpanNode | undefined {
  for (let cut = path.lastIndexOf('.'); cut > 0; cut = path.lastIndexOf('.', cut - 1)) {
    const span = spans.get(path.slice(0, cut));
    if (span) return span;
  }
  return undefined;
}

/** A node's name: its path's last segment, without a child's or item's `@runId`. */
function nodeName(path: string): string {
  const last = path.slice(path.lastIndexOf('.') + 1);
  const at = last.indexOf('@');
  return at > 0 ? last.slice(0, at) : last;
}

/** A route as an attribute: one key as text, a list as a list of texts. */
function routeAttribute(route: Route): string | string[] {
  return Array.isArray(route) ? route.map(String) : String(route);
}
