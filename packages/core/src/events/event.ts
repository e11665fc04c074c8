import type { Content, FunctionCall, FunctionResponse } from './content.js';
import { contentText } from './content.js';
import { newId } from '../utils/ids.js';

/** Token counts of one model call, or totals. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (part of inputTokens). */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's cache for this call (Anthropic: part of inputTokens; Gemini: its explicit cache, billed apart). */
  cacheWriteTokens?: number;
  thoughtTokens?: number;
}

/** What a router chose, recorded on the event that starts the chosen agent. */
export interface RouteAction {
  key: string;
  reason?: string;
}

/** Side effects an event carries. State only changes through `stateDelta`. */
export interface EventActions {
  stateDelta: Record<string, unknown>;
  artifactDelta: Record<string, number>;
  transferToAgent?: string;
  escalate?: boolean;
  skipSummarization?: boolean;
  endOfAgent?: boolean;
  /** Opaque progress of the authoring agent, written by workflow agents so a run can be resumed. */
  agentState?: Record<string, unknown>;
  route?: RouteAction;
  /** On a compaction event: the summary that stands in for older events in model history. */
  compaction?: EventCompaction;
  /**
   * On a rewind event: the invocation the session was rewound to before. This invocation's events
   * and every later one up to this event are rewound: kept, but no longer part of history or state.
   */
  rewindBeforeInvocationId?: string;
}

/**
 * What a compaction event stands for (ADK's `EventCompaction`): the events from `startEventId` to
 * `endEventId` (their timestamps `startTimestamp`…`endTimestamp`, ms) that the root agent's history
 * shows, summarised by a model.
 */
export interface EventCompaction {
  startTimestamp: number;
  endTimestamp: number;
  /** The summary, as the model wrote it. */
  summary: Content;
  /** The first compacted event (exact where timestamps tie). */
  startEventId?: string;
  /** The last compacted event. */
  endEventId?: string;
}

/** The event that pauses a run for a human (see interrupt & resume). */
export interface InterruptInfo {
  id: string;
  kind: 'confirmation' | 'input';
  agentPath: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  hint?: string;
  message?: string;
  payload?: unknown;
  responseSchema?: Record<string, unknown>;
}

/** One route key a graph workflow node emits (ADK's `RouteValue`); edges match it by its string form. */
export type RouteKey = string | number | boolean;

/** The route(s) a workflow node emits: one key fires one branch, a list fires every matching branch. */
export type Route = RouteKey | RouteKey[];

/**
 * Where in a graph workflow an event comes from (ADK's `nodeInfo`). `path` is dot-separated from
 * the workflow (`triage.classify`; a dynamic or parallel-worker child adds `.<name>@<runId>`).
 * Troupe adds `runId` and `attempt`, which its resume reads.
 */
export interface NodeInfo {
  path: string;
  /** Which run of the node at `path` (`'1'`, `'2'`, … or the id given to `ctx.runNode`). */
  runId?: string;
  /** Which try of that run (1-based; above 1 only after a retry). */
  attempt?: number;
  /** ADK: the node paths this event's output is the output of. */
  outputFor?: string[];
  /** ADK: the event's text is the node's output. */
  messageAsOutput?: boolean;
}

/** One thing that happened in a session. Plain and JSON-serialisable. */
export interface Event {
  id: string;
  invocationId: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** `'user'` or the name of the agent that produced the event. */
  author: string;
  /** History-isolation path, segments joined by `.`; `''` at the top. */
  branch: string;
  /** Provenance: agent names from the root joined by `/`. */
  path: string;
  content?: Content;
  /** True for streaming chunks, which are yielded but never persisted. */
  partial?: boolean;
  /** The structured output of the agent that ends with this event (or of the workflow node it ends). */
  output?: unknown;
  /** A graph workflow node's route: which outgoing edges fire. */
  route?: Route;
  /** Set on the events of a graph workflow's nodes. */
  nodeInfo?: NodeInfo;
  actions: EventActions;
  usage?: Usage;
  /** Which model answered. */
  model?: string;
  errorCode?: string;
  errorMessage?: string;
  interrupt?: InterruptInfo;
  /**
   * A custom event an agent, callback, tool or node emitted with `ctx.emit(name, data)`: stored in
   * order with the others and streamed on every protocol, never part of what a model sees.
   */
  customEvent?: CustomEventInfo;
}

/** What `ctx.emit(name, data)` records: an application's own progress or data, by name. */
export interface CustomEventInfo {
  name: string;
  /** JSON-serialisable; `undefined` when the event has no data. */
  data?: unknown;
}

/**
 * The fields of an event one may give to {@link createEvent}. `stateDelta` is short for
 * `actions.stateDelta` (as a graph workflow node writes `createEvent({ output, route, content, stateDelta })`).
 */
export type EventInit = Partial<Omit<Event, 'actions'>> & {
  actions?: Partial<EventActions>;
  stateDelta?: Record<string, unknown>;
};

/** Builds an event: fills `id`, `timestamp` and empty `actions`; the agent fills author, branch and path. */
export function createEvent(fields: EventInit = {}): Event {
  const init = fields.actions;
  // Every event gets the same property order so the engine keeps one fast shape for all of them.
  const actions: EventActions = {
    stateDelta:
      fields.stateDelta === undefined
        ? (init?.stateDelta ?? {})
        : init?.stateDelta === undefined
          ? fields.stateDelta
          : { ...init.stateDelta, ...fields.stateDelta },
    artifactDelta: init?.artifactDelta ?? {},
  };
  if (init) {
    if (init.transferToAgent !== undefined) actions.transferToAgent = init.transferToAgent;
    if (init.escalate !== undefined) actions.escalate = init.escalate;
    if (init.skipSummarization !== undefined) actions.skipSummarization = init.skipSummarization;
    if (init.endOfAgent !== undefined) actions.endOfAgent = init.endOfAgent;
    if (init.agentState !== undefined) actions.agentState = init.agentState;
    if (init.route !== undefined) actions.route = init.route;
    if (init.compaction !== undefined) actions.compaction = init.compaction;
    if (init.rewindBeforeInvocationId !== undefined) actions.rewindBeforeInvocationId = init.rewindBeforeInvocationId;
  }
  const event: Event = {
    id: fields.id ?? newId(),
    invocationId: fields.invocationId ?? '',
    timestamp: fields.timestamp ?? Date.now(),
    author: fields.author ?? '',
    branch: fields.branch ?? '',
    path: fields.path ?? '',
    actions,
  };
  if (fields.content !== undefined) event.content = fields.content;
  if (fields.partial !== undefined) event.partial = fields.partial;
  if (fields.output !== undefined) event.output = fields.output;
  if (fields.route !== undefined) event.route = fields.route;
  if (fields.nodeInfo !== undefined) event.nodeInfo = fields.nodeInfo;
  if (fields.usage !== undefined) event.usage = fields.usage;
  if (fields.model !== undefined) event.model = fields.model;
  if (fields.errorCode !== undefined) event.errorCode = fields.errorCode;
  if (fields.errorMessage !== undefined) event.errorMessage = fields.errorMessage;
  if (fields.interrupt !== undefined) event.interrupt = fields.interrupt;
  if (fields.customEvent !== undefined) event.customEvent = fields.customEvent;
  return event;
}

/**
 * A workflow engine's record of a node run (its start or end): `createEvent`'s shape and property
 * order for these fields, made without reading an init object. Internal.
 */
export function createNodeRecordEvent(
  author: string,
  nodeInfo: NodeInfo,
  agentState: Record<string, unknown>,
  output: unknown,
  route: Route | undefined,
): Event {
  const event: Event = {
    id: newId(),
    invocationId: '',
    timestamp: Date.now(),
    author,
    branch: '',
    path: '',
    actions: { stateDelta: {}, artifactDelta: {}, agentState },
  };
  if (output !== undefined) event.output = output;
  if (route !== undefined) event.route = route;
  event.nodeInfo = nodeInfo;
  return event;
}

/** The function calls an event asks for. */
export function getFunctionCalls(event: Event): FunctionCall[] {
  const calls: FunctionCall[] = [];
  for (const part of event.content?.parts ?? []) {
    if ('functionCall' in part) calls.push(part.functionCall);
  }
  return calls;
}

/** The function responses an event carries. */
export function getFunctionResponses(event: Event): FunctionResponse[] {
  const responses: FunctionResponse[] = [];
  for (const part of event.content?.parts ?? []) {
    if ('functionResponse' in part) responses.push(part.functionResponse);
  }
  return responses;
}

/** The event's non-thought text. */
export function textOf(event: Event): string {
  return contentText(event.content);
}

/**
 * True when the event is an agent's final answer for the turn: not a partial chunk, and not a
 * tool call or tool result still waiting for the model (unless the tool skipped summarisation).
 */
export function isFinalResponse(event: Event): boolean {
  // A custom event (ctx.emit) is progress or data, never the answer.
  if (event.partial || event.customEvent) return false;
  if (event.actions.skipSummarization || event.interrupt) return true;
  for (const part of event.content?.parts ?? []) {
    if ('functionCall' in part || 'functionResponse' in part) return false;
  }
  return true;
}
