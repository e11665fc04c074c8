import type { FunctionCall, Part } from '../../events/content.js';
import { contentText } from '../../events/content.js';
import type { InvocationContext } from '../invocation-context.js';
import { isOwnEvent } from '../replay.js';

/** Where a resumed LlmAgent stands, read from its own events in this run. */
export type LlmResumePoint =
  | { kind: 'fresh' }
  /** It already gave its final answer or its turn was ended by a tool: nothing to do. */
  | { kind: 'done' }
  /** Its last model turn asked for calls that have no response yet: run those (only those). */
  | { kind: 'pendingCalls'; calls: FunctionCall[]; from: number; lastText: string | undefined; earlier: EarlierResults }
  /** Every call was answered: the next step is a model call. */
  | { kind: 'continue'; lastText: string | undefined }
  /** It transferred; the target was running. */
  | { kind: 'transferred'; target: string; from: number };

/** What a paused model turn's calls answered before the resume gave. */
export interface EarlierResults {
  /** The turn's call ids, in call order. */
  callIds: string[];
  /** The responses already stored, in call order. */
  parts: Part[];
  /** One of those tools set `skipSummarization`: the turn ends with the results, as it would have without the pause. */
  skipSummarization: boolean;
  /** One of those tools set `skipSummarization` or `escalate`: no model call follows the turn. */
  ended: boolean;
}

/** Reads the agent's events at or after `ctx.resumeFrom` (same name, path and invocation). */
export function findLlmResumePoint(ctx: InvocationContext, agentName: string): LlmResumePoint {
  const events = ctx.session.events;
  let modelTurn: { index: number; calls: FunctionCall[] } | undefined;
  let answered = new Map<string, Part>();
  let transfer: { target: string; from: number } | undefined;
  let ended = false;
  let skipSummarization = false;
  let final = false;
  let lastText: string | undefined;
  let seen = false;
  for (let i = ctx.resumeFrom ?? events.length; i < events.length; i++) {
    const e = events[i]!;
    if (!e.content || !isOwnEvent(e, ctx, agentName)) continue;
    seen = true;
    const parts = e.content.parts;
    if (e.content.role === 'model') {
      const calls: FunctionCall[] = [];
      for (const p of parts) if ('functionCall' in p) calls.push(p.functionCall);
      const text = contentText(e.content);
      if (text) lastText = text;
      if (e.errorCode) continue; // an answer that was rejected (e.g. invalid structured output)
      modelTurn = { index: i, calls };
      answered = new Map();
      transfer = undefined;
      ended = false;
      skipSummarization = false;
      final = calls.length === 0;
    } else {
      for (const p of parts) if ('functionResponse' in p) answered.set(p.functionResponse.id, p);
      if (e.actions.transferToAgent) transfer = { target: e.actions.transferToAgent, from: i + 1 };
      if (e.actions.skipSummarization) skipSummarization = true;
      if (e.actions.skipSummarization || e.actions.escalate) ended = true;
    }
  }
  if (!seen || !modelTurn) return { kind: 'fresh' };
  if (final) return { kind: 'done' };
  const pending = modelTurn.calls.filter((c) => !answered.has(c.id));
  if (pending.length > 0) {
    const earlier: EarlierResults = { callIds: [], parts: [], skipSummarization, ended };
    for (const call of modelTurn.calls) {
      earlier.callIds.push(call.id);
      const response = answered.get(call.id);
      if (response) earlier.parts.push(response);
    }
    return { kind: 'pendingCalls', calls: pending, from: modelTurn.index + 1, lastText, earlier };
  }
  if (transfer) return { kind: 'transferred', ...transfer };
  if (ended) return { kind: 'done' };
  return { kind: 'continue', lastText };
}
