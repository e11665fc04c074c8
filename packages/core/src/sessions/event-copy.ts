import type { Event, EventActions } from '../events/event.js';
import { cloneData } from '../utils/clone.js';

const EMPTY: Record<string, never> = Object.freeze({});

/**
 * A deep copy of an event with the same property order for every event (one fast shape). With
 * `compact`, empty deltas share one frozen object: for copies a store keeps and never hands out.
 */
export function copyEvent(event: Event, compact = false): Event {
  const copy: Event = {
    id: event.id,
    invocationId: event.invocationId,
    timestamp: event.timestamp,
    author: event.author,
    branch: event.branch,
    path: event.path,
    actions: copyActions(event.actions, compact),
  };
  if (event.content !== undefined) copy.content = cloneData(event.content);
  if (event.partial !== undefined) copy.partial = event.partial;
  if (event.output !== undefined) copy.output = copyValue(event.output);
  if (event.route !== undefined) copy.route = copyValue(event.route);
  if (event.nodeInfo !== undefined) copy.nodeInfo = cloneData(event.nodeInfo);
  if (event.usage !== undefined) copy.usage = { ...event.usage };
  if (event.model !== undefined) copy.model = event.model;
  if (event.errorCode !== undefined) copy.errorCode = event.errorCode;
  if (event.errorMessage !== undefined) copy.errorMessage = event.errorMessage;
  if (event.interrupt !== undefined) copy.interrupt = cloneData(event.interrupt);
  if (event.customEvent !== undefined) copy.customEvent = cloneData(event.customEvent);
  return copy;
}

function copyActions(actions: EventActions, compact: boolean): EventActions {
  const copy: EventActions = {
    stateDelta: compact && isEmpty(actions.stateDelta) ? EMPTY : cloneData(actions.stateDelta),
    artifactDelta: compact && isEmpty(actions.artifactDelta) ? EMPTY : { ...actions.artifactDelta },
  };
  if (actions.transferToAgent !== undefined) copy.transferToAgent = actions.transferToAgent;
  if (actions.escalate !== undefined) copy.escalate = actions.escalate;
  if (actions.skipSummarization !== undefined) copy.skipSummarization = actions.skipSummarization;
  if (actions.endOfAgent !== undefined) copy.endOfAgent = actions.endOfAgent;
  if (actions.agentState !== undefined) copy.agentState = cloneData(actions.agentState);
  if (actions.route !== undefined) copy.route = { ...actions.route };
  if (actions.compaction !== undefined) copy.compaction = cloneData(actions.compaction);
  if (actions.rewindBeforeInvocationId !== undefined) copy.rewindBeforeInvocationId = actions.rewindBeforeInvocationId;
  return copy;
}

/** A value copied deeply; a primitive (most outputs and routes) as it is, with no call. */
function copyValue<T>(value: T): T {
  return typeof value === 'object' && value !== null ? cloneData(value) : value;
}

function isEmpty(value: object): boolean {
  for (const _ in value) return false;
  return true;
}
