import { type Event, getFunctionCalls, isFinalResponse, textOf } from '@troupe/core';
import type { ToolCallExpectation, ToolCallRecord } from './eval-set.js';
import type { TrajectoryMatch } from './metrics/metric-names.js';

/**
 * The tool calls made in `events`, in the order they were made, at every depth: a call to an
 * AgentTool is followed by the calls of the agent it wraps (recorded with that agent's path, e.g.
 * `Planner/Researcher`), then by what the caller does next. `transfer_to_agent` calls count too,
 * as in ADK. Partial (streamed) events are skipped.
 */
export function toolTrajectory(events: readonly Event[]): ToolCallRecord[] {
  const calls: ToolCallRecord[] = [];
  for (const event of events) {
    if (event.partial) continue;
    for (const call of getFunctionCalls(event))
      calls.push({ name: call.name, args: call.args ?? {}, agent: event.path || event.author });
  }
  return calls;
}

/**
 * The final response of a turn: the text of its last final-response event that has text (the
 * answering agent's last words; for a pipeline, the last step's). Empty when nothing was said.
 */
export function finalResponseText(events: readonly Event[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author === 'user' || !isFinalResponse(event)) continue;
    const text = textOf(event);
    if (text) return text;
  }
  return '';
}

/** True when `actual` is the call `expected` describes: same name, and the same args and agent where given. */
export function callMatches(expected: ToolCallExpectation, actual: ToolCallRecord): boolean {
  if (expected.name !== actual.name) return false;
  if (expected.agent !== undefined && !agentMatches(expected.agent, actual.agent)) return false;
  return expected.args === undefined || jsonEqual(expected.args, actual.args);
}

/** An expected agent matches the caller's whole path or a trailing part of it (`Researcher` matches `Planner/Researcher`). */
function agentMatches(expected: string, path: string): boolean {
  const wanted = expected.replace(/^\/+|\/+$/g, '');
  return path === wanted || path.endsWith(`/${wanted}`);
}

/**
 * Scores a turn's tool calls against the expected ones: 1 or 0 for `exact`, `in_order` and
 * `any_order` (ADK's match types), partial credit for `f1`.
 */
export function trajectoryScore(
  match: TrajectoryMatch,
  expected: readonly ToolCallExpectation[],
  actual: readonly ToolCallRecord[],
): number {
  switch (match) {
    case 'exact':
      return expected.length === actual.length && expected.every((call, i) => callMatches(call, actual[i]!)) ? 1 : 0;
    case 'in_order':
      return inOrder(expected, actual) ? 1 : 0;
    case 'any_order':
      return matchedCount(expected, actual) === expected.length ? 1 : 0;
    case 'f1':
      return f1(expected, actual);
  }
}

function inOrder(expected: readonly ToolCallExpectation[], actual: readonly ToolCallRecord[]): boolean {
  let next = 0;
  for (const call of actual) {
    if (next < expected.length && callMatches(expected[next]!, call)) next++;
  }
  return next === expected.length;
}

/**
 * How many expected calls can be paired with distinct actual calls: a maximum bipartite matching
 * (augmenting paths), since an expectation without args or agent may match calls a more precise
 * one needs.
 */
function matchedCount(expected: readonly ToolCallExpectation[], actual: readonly ToolCallRecord[]): number {
  const owner: (number | undefined)[] = actual.map(() => undefined);
  const tryAssign = (e: number, seen: Set<number>): boolean => {
    for (let a = 0; a < actual.length; a++) {
      if (seen.has(a) || !callMatches(expected[e]!, actual[a]!)) continue;
      seen.add(a);
      const current = owner[a];
      if (current === undefined || tryAssign(current, seen)) {
        owner[a] = e;
        return true;
      }
    }
    return false;
  };
  let matched = 0;
  for (let e = 0; e < expected.length; e++) if (tryAssign(e, new Set())) matched++;
  return matched;
}

function f1(expected: readonly ToolCallExpectation[], actual: readonly ToolCallRecord[]): number {
  if (expected.length === 0 && actual.length === 0) return 1;
  if (expected.length === 0 || actual.length === 0) return 0;
  const matched = matchedCount(expected, actual);
  if (matched === 0) return 0;
  const precision = matched / actual.length;
  const recall = matched / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Deep equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  const keys = Object.keys(aRecord).filter((k) => aRecord[k] !== undefined);
  if (keys.length !== Object.keys(bRecord).filter((k) => bRecord[k] !== undefined).length) return false;
  return keys.every((key) => Object.hasOwn(bRecord, key) && jsonEqual(aRecord[key], bRecord[key]));
}
