import { type Event, type InterruptInfo, REQUEST_INPUT_FUNCTION_CALL_NAME } from '@troupe/core';

/**
 * How the transcript names and shows graph workflow nodes (SPEC §17: "the CLI prints `[node]
 * output`"). A node's events carry `nodeInfo.path`, dot-separated from the outermost workflow
 * (`triage.classify`, `triage.tally.count`, `triage.fan.fan@0`); the transcript names a node by
 * its path inside that workflow (`classify`, `tally.count`).
 */

/** A node's name in the transcript: its path without the outermost workflow; undefined for a workflow's own path. */
export function nodeName(path: string): string | undefined {
  const dot = path.indexOf('.');
  return dot < 0 || dot === path.length - 1 ? undefined : path.slice(dot + 1);
}

/** The node run an event belongs to (`path#runId`), or undefined for an event outside a workflow node. */
export function nodeRunKey(event: Event): string | undefined {
  const info = event.nodeInfo;
  if (!info || nodeName(info.path) === undefined) return undefined;
  return `${info.path}#${info.runId ?? ''}`;
}

/**
 * The node run a node's end record closes, with its output, when the event is one: the record
 * `actions.agentState.node === 'ended'` with an output (a run that ended waiting for its output,
 * or gave none, has nothing to show).
 */
export function nodeEnd(event: Event): { name: string; key: string; output: unknown } | undefined {
  const record = event.actions.agentState;
  if (record?.node !== 'ended' || record.waiting === true || event.output === undefined) return undefined;
  const key = nodeRunKey(event);
  const name = event.nodeInfo && nodeName(event.nodeInfo.path);
  return key && name ? { name, key, output: event.output } : undefined;
}

/** The name of the node whose run starts with this event (its start record), for the spinner. */
export function nodeStart(event: Event): string | undefined {
  if (event.actions.agentState?.node !== 'started' || !event.nodeInfo) return undefined;
  return nodeName(event.nodeInfo.path);
}

/** A node's output as the transcript prints it: text as it is, anything else as compact JSON. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output) ?? String(output);
}

/**
 * True when `shown`, the last text a node's agent showed, already says `output`: the same text,
 * or JSON of the same value (an agent with an output schema answers in JSON, parsed as its output).
 */
export function saysOutput(shown: string, output: unknown): boolean {
  if (typeof output === 'string') return shown.trim() === output.trim();
  try {
    return JSON.stringify(JSON.parse(shown)) === JSON.stringify(output);
  } catch {
    return false;
  }
}

/** True for the question a workflow node asks with `RequestInput` (ADK's `adk_request_input` call). */
export function isNodeRequest(interrupt: InterruptInfo): boolean {
  return interrupt.kind === 'input' && interrupt.toolName === REQUEST_INPUT_FUNCTION_CALL_NAME;
}

/**
 * Which node asked each workflow question in `events` (interrupt id → node name): the question's
 * event carries the asking node's path. For questions raised in an earlier process, read from the
 * session's stored events.
 */
export function nodeRequests(events: readonly Event[]): Map<string, string> {
  const askers = new Map<string, string>();
  for (const event of events) rememberAsker(askers, event);
  return askers;
}

/** Adds the node that asked the event's workflow question, if it is one. */
export function rememberAsker(askers: Map<string, string>, event: Event): void {
  const interrupt = event.interrupt;
  if (!interrupt || !isNodeRequest(interrupt) || !event.nodeInfo) return;
  const name = nodeName(event.nodeInfo.path);
  if (name !== undefined) askers.set(interrupt.id, name);
}

/** Who asks an input request, for its question: the workflow node, else its workflow, else the tool. */
export function askerOf(interrupt: InterruptInfo, askers?: ReadonlyMap<string, string>): string {
  if (!isNodeRequest(interrupt)) return interrupt.toolName;
  return askers?.get(interrupt.id) ?? interrupt.agentPath.slice(interrupt.agentPath.lastIndexOf('/') + 1);
}
