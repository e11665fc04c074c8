import type { InvocationContext } from '../invocation-context.js';
import { teamProgress } from '../progress.js';
import { isOwnEvent } from '../replay.js';

/**
 * A TeamAgent's progress in this run, read back from its progress records so a resumed run reuses
 * finished skill runs ("units") instead of repeating them.
 */
export interface TeamProgress {
  /** Outputs of finished units, by unit key. */
  readonly done: Map<string, Record<string, unknown>>;
  /** Where each reflection round's events start (index in the session), by scope key. */
  readonly roundStarts: Map<string, number>;
  /** True when the team had already finished. */
  readonly finished: boolean;
}

/** The key of one skill (or reviewer) run: item, reflection round and agent. */
export function unitKey(item: number | undefined, round: number, agentName: string): string {
  return `${item ?? '-'}:${round}:${agentName}`;
}

/** The key of a reflection round of an item. */
export function roundKey(item: number | undefined, round: number): string {
  return `${item ?? '-'}:${round}`;
}

export function readProgress(ctx: InvocationContext, teamName: string): TeamProgress {
  const progress: TeamProgress = { done: new Map(), roundStarts: new Map(), finished: false };
  if (ctx.resumeFrom === undefined) return progress;
  const events = ctx.session.events;
  let finished = false;
  for (let i = ctx.resumeFrom; i < events.length; i++) {
    const e = events[i]!;
    const record = isOwnEvent(e, ctx, teamName) ? teamProgress(e.actions.agentState) : undefined;
    if (!record) continue;
    if ('unit' in record) progress.done.set(record.unit, record.output);
    if ('round' in record) progress.roundStarts.set(record.round, i + 1);
    if (e.actions.endOfAgent) finished = true;
  }
  return { ...progress, finished };
}
