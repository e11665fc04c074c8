import type { Content, Part } from '../../events/content.js';
import type { Event } from '../../events/event.js';
import type { InvocationContext } from '../invocation-context.js';
import { BranchIndex } from './branch-index.js';
import { isBranchVisible } from './branch-visibility.js';
import { callIdsOf, inCallOrder } from './call-order.js';
import { planHistory, isHistoryRewrite, type HistoryPlan } from './history-plan.js';

/**
 * What an LlmAgent sees of the conversation: `'default'` every visible event, `'none'` only the
 * current turn, or a window over the default history (see {@link HistoryWindow}).
 */
export type IncludeContents = 'default' | 'none' | HistoryWindow;

/**
 * A window over the default history; the current turn (from the latest user message on) is always
 * included whole. With both limits, `lastTurns` applies first.
 */
export interface HistoryWindow {
  /** Keep the last n user turns before the current one (0: only the current turn). */
  lastTurns?: number;
  /**
   * Keep the most recent history that fits in this many tokens, counted by the model's
   * `countTokens` when it has one, else as characters / 4. A function call is never kept without
   * its response, nor a response without its call.
   */
  maxTokens?: number;
}

/** The contents an agent sends, and where its user turns start in them. */
export interface HistoryView {
  contents: Content[];
  /**
   * Indexes in `contents` of the user's messages, ascending. Computed on demand: only windows need
   * it, and a walk over the whole history per model call would make long sessions cost more per turn.
   */
  userTurns(): number[];
}

interface HistoryCache {
  /** How many source events have been folded in. */
  processed: number;
  contents: Content[];
  /** Whether each content is the agent's own turn (its model turns and its tool results). */
  own: boolean[];
  /** Own function calls still waiting for their response: id → the model turn asking (made on the first call). */
  openCalls: Map<string, OpenTurn> | undefined;
}

/** One of the agent's model turns while some of its calls have no response yet. */
interface OpenTurn {
  /** Index in `contents` of the model turn, and its call ids in order. */
  readonly at: number;
  readonly callIds: readonly string[];
  /**
   * Index in `contents` of the tool-result turn holding the responses so far. Responses stored
   * later (a resume answers some calls after the others) join it, in call order: the model sees
   * one result turn right after its calls, whether or not the turn paused.
   */
  results: number | undefined;
}

/** What is cached for one event list (a run's session, or an isolated AgentTool/skill conversation). @internal */
export interface SourceCache {
  /** Per agent and branch: what it folded so far. */
  readonly byAgent: Map<string, HistoryCache>;
  /**
   * Other agents' turns as context, and the user's messages: every agent but the author sees an
   * event the same way, so each is built once and shared.
   */
  views: Map<Event, Content | null> | undefined;
  /** The user's messages among those views: how windows find turns without a second walk over the events. */
  userMessages: Set<Content> | undefined;
  /** How many events were checked for compaction and rewind records. */
  scanned: number;
  /** Events left out and summaries put in, once the list holds a compaction or rewind record. */
  plan: HistoryPlan | undefined;
  /** The events by branch, so a new agent or branch reads only what it can see. */
  readonly branches: BranchIndex;
}

// History is built incrementally: each agent/branch keeps what it folded so far, keyed by the
// event list it came from (a history scope holds its own), so a model call costs O(new events),
// not O(all events). Everything cached hangs off that list and is freed with it.
const caches = new WeakMap<Event[], SourceCache>();

/**
 * The contents an LlmAgent sends to its model: the visible events in order; the user's messages as
 * user turns; its own turns as model turns (with its calls and their results); other agents' text,
 * tool calls and tool results rewritten as user-role context; a compaction's summary in place of
 * the events it summarises; rewound events left out. The result always pairs every function call
 * with its response.
 */
export function buildHistory(
  ctx: InvocationContext,
  agentName: string,
  includeContents: 'default' | 'none',
): HistoryView {
  const scope = ctx.historyScope;
  const source = scope?.events ?? ctx.session.events;
  let sourceCache = scope ? scope.historyCache : caches.get(source);
  if (!sourceCache) {
    sourceCache = {
      byAgent: new Map(),
      views: undefined,
      userMessages: undefined,
      scanned: 0,
      plan: undefined,
      branches: new BranchIndex(),
    };
    // A scope's conversation keeps its cache itself: no weak map entry per agent node or tool call.
    if (scope) scope.historyCache = sourceCache;
    else caches.set(source, sourceCache);
  }
  const fanIn = ctx.historyScope?.fanIn ?? ctx.shared.fanIn;
  // A compaction or rewind record changes what earlier events mean: everything is folded again
  // (rare: once per compaction or rewind).
  let rewritten = false;
  for (let i = sourceCache.scanned; i < source.length; i++) if (isHistoryRewrite(source[i]!)) rewritten = true;
  sourceCache.scanned = source.length;
  if (rewritten) {
    sourceCache.plan = planHistory(source, fanIn);
    sourceCache.byAgent.clear();
  }
  const plan = sourceCache.plan;
  const key = `${agentName}\u0000${ctx.branch}`;
  let cache = sourceCache.byAgent.get(key);
  if (!cache) {
    cache = { processed: 0, contents: [], own: [], openCalls: undefined };
    sourceCache.byAgent.set(key, cache);
  }
  if (plan) {
    // Summaries sit at events of any branch: every event is looked at.
    for (let i = cache.processed; i < source.length; i++) {
      const event = source[i]!;
      const summaries = plan.summariesAt.get(event);
      if (summaries) {
        for (const summary of summaries) {
          cache.contents.push(summary);
          cache.own.push(false);
        }
      }
      if (plan.skipped.has(event)) continue;
      if (!isBranchVisible(event.branch, ctx.branch, fanIn)) continue;
      foldEvent(cache, event, agentName, sourceCache);
    }
  } else {
    const branches = sourceCache.branches;
    branches.update(source);
    if (branches.allVisibleTo(ctx.branch)) {
      for (let i = cache.processed; i < source.length; i++) foldEvent(cache, source[i]!, agentName, sourceCache);
    } else {
      const visible = branches.visibleFrom(ctx.branch, fanIn, cache.processed);
      for (let k = 0; k < visible.length; k++) foldEvent(cache, source[visible[k]!]!, agentName, sourceCache);
    }
  }
  cache.processed = source.length;

  let start = 0;
  if (includeContents === 'none') {
    start = cache.own.lastIndexOf(false);
    if (start < 0) start = 0;
  }
  const sliced = cache.contents.slice(start);
  const open = cache.openCalls;
  const contents = !open || open.size === 0 ? sliced : withoutOpenCalls(sliced, open, start);
  const userMessages = sourceCache.userMessages;
  const userTurns = (): number[] => {
    const turns: number[] = [];
    for (let i = 0; i < contents.length; i++) if (userMessages?.has(contents[i]!)) turns.push(i);
    return turns;
  };
  return { contents, userTurns };
}

function foldEvent(cache: HistoryCache, event: Event, agentName: string, source: SourceCache): void {
  if (event.partial || !event.content || event.content.parts.length === 0) return;
  const content = event.content;
  if (event.author === 'user') {
    let message = source.views?.get(event);
    if (!message) {
      message = { role: 'user', parts: content.parts };
      (source.views ??= new Map()).set(event, message);
      (source.userMessages ??= new Set()).add(message);
    }
    cache.contents.push(message);
    cache.own.push(false);
    return;
  }
  if (event.author === agentName) {
    const index = cache.contents.length;
    const parts: Part[] = [];
    // Responses to a turn whose result turn is already in `contents`, by that turn.
    let late: Map<OpenTurn, Part[]> | undefined;
    for (const part of content.parts) {
      if ('text' in part && part.thought) continue;
      if ('functionResponse' in part) {
        const id = part.functionResponse.id;
        const turn = cache.openCalls?.get(id);
        // A response without its call (e.g. the call was never stored) would be invalid for providers.
        if (!turn) continue;
        cache.openCalls!.delete(id);
        if (turn.results !== undefined && turn.results !== index) {
          late ??= new Map();
          const added = late.get(turn);
          if (added) added.push(part);
          else late.set(turn, [part]);
          continue;
        }
        turn.results = index;
      }
      parts.push(part);
    }
    if (late) for (const [turn, added] of late) joinResults(cache, turn, added);
    if (parts.length === 0) return;
    const folded: Content = { role: content.role, parts };
    const callIds = callIdsOf(folded);
    if (callIds.length > 0) {
      const turn: OpenTurn = { at: index, callIds, results: undefined };
      const open = (cache.openCalls ??= new Map());
      for (const id of callIds) open.set(id, turn);
    }
    cache.contents.push(folded);
    cache.own.push(true);
    return;
  }
  let foreign = source.views?.get(event);
  if (foreign === undefined) {
    const parts = rewriteForeign(event.author, content.parts);
    foreign = parts.length === 0 ? null : { role: 'user', parts };
    (source.views ??= new Map()).set(event, foreign);
  }
  if (foreign === null) return;
  cache.contents.push(foreign);
  cache.own.push(false);
}

/** Another agent's turn as context text the model can read without confusing it for its own. */
function rewriteForeign(author: string, source: Part[]): Part[] {
  const parts: Part[] = [];
  for (const part of source) {
    if ('text' in part) {
      if (!part.thought && part.text) parts.push({ text: `[${author}] said: ${part.text}` });
    } else if ('functionCall' in part) {
      parts.push({
        text: `[${author}] called tool '${part.functionCall.name}' with parameters: ${JSON.stringify(part.functionCall.args ?? {})}`,
      });
    } else if ('functionResponse' in part) {
      parts.push({
        text: `[${author}] tool '${part.functionResponse.name}' returned: ${JSON.stringify(part.functionResponse.response ?? {})}`,
      });
    } else {
      parts.push(part);
    }
  }
  return parts;
}

/**
 * Puts responses stored after a turn's first results into that result turn, in call order. The
 * content is replaced, not edited: requests built earlier hold the old one.
 */
function joinResults(cache: HistoryCache, turn: OpenTurn, added: Part[]): void {
  const at = turn.results!;
  const results = cache.contents[at]!;
  cache.contents[at] = { role: results.role, parts: inCallOrder(turn.callIds, [...results.parts, ...added]) };
}

/** Drops function calls that never got a response (a crashed or paused earlier turn). */
function withoutOpenCalls(contents: Content[], openCalls: ReadonlyMap<string, OpenTurn>, start: number): Content[] {
  const touched = new Set<number>();
  for (const { at } of openCalls.values()) if (at >= start) touched.add(at - start);
  const out: Content[] = [];
  for (let i = 0; i < contents.length; i++) {
    const content = contents[i]!;
    if (!touched.has(i)) {
      out.push(content);
      continue;
    }
    const parts = content.parts.filter((p) => !('functionCall' in p && openCalls.has(p.functionCall.id)));
    if (parts.length > 0) out.push({ role: content.role, parts });
  }
  return out;
}
