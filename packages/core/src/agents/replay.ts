import type { Event } from '../events/event.js';
import type { InvocationContext } from './invocation-context.js';

/**
 * Reading an agent's earlier progress in this invocation from the session, so that a resumed run
 * (after an interrupt, in another process, or after a crash) continues where it stopped instead of
 * repeating finished steps. Every helper reads only events at or after `ctx.resumeFrom`.
 */

/** The last progress record (`actions.agentState`) the agent wrote in this run, and where. */
export function lastCheckpoint(ctx: InvocationContext, agentName: string): { index: number; state: Record<string, unknown> } | undefined {
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= (ctx.resumeFrom ?? events.length); i--) {
    const e = events[i]!;
    if (e.author === agentName && e.path === ctx.path && e.branch === ctx.branch && e.invocationId === ctx.invocationId && e.actions.agentState) {
      return { index: i, state: e.actions.agentState };
    }
  }
  return undefined;
}

/** All progress records the agent wrote in this run. */
export function checkpoints(ctx: InvocationContext, agentName: string): Record<string, unknown>[] {
  const events = ctx.session.events;
  const out: Record<string, unknown>[] = [];
  for (let i = ctx.resumeFrom ?? events.length; i < events.length; i++) {
    const e = events[i]!;
    if (e.author === agentName && e.path === ctx.path && e.branch === ctx.branch && e.invocationId === ctx.invocationId && e.actions.agentState) out.push(e.actions.agentState);
  }
  return out;
}

/** The output of the last event on `branch` in this run (e.g. a finished parallel branch's output). */
export function lastOutputOnBranch(ctx: InvocationContext, branch: string): unknown {
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= (ctx.resumeFrom ?? events.length); i--) {
    const e = events[i]!;
    if (e.branch === branch && e.invocationId === ctx.invocationId && e.output !== undefined) return e.output;
  }
  return undefined;
}

/** True when an event pauses the run (or passes on a pause from deeper down). */
export function isPause(event: Event): boolean {
  return event.interrupt !== undefined;
}
