import type { Event } from '../events/event.js';
import type { BaseAgent } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { sequentialProgress } from './progress.js';

/**
 * Reading an agent's earlier progress in this invocation from the session, so that a resumed run
 * (after an interrupt, in another process, or after a crash) continues where it stopped instead of
 * repeating finished steps. Every helper reads only events at or after `ctx.resumeFrom`.
 */

/** True when `event` is the agent's own (same name, path and branch) in this invocation. */
export function isOwnEvent(event: Event, ctx: InvocationContext, agentName: string): boolean {
  return (
    event.author === agentName &&
    event.path === ctx.path &&
    event.branch === ctx.branch &&
    event.invocationId === ctx.invocationId
  );
}

/** The last progress record (`actions.agentState`) the agent wrote in this run, and where. */
export function lastCheckpoint(
  ctx: InvocationContext,
  agentName: string,
): { index: number; state: Record<string, unknown> } | undefined {
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= (ctx.resumeFrom ?? events.length); i--) {
    const e = events[i]!;
    if (isOwnEvent(e, ctx, agentName) && e.actions.agentState) {
      return { index: i, state: e.actions.agentState };
    }
  }
  return undefined;
}

/** True when the agent stored an event of its own in this run. */
export function hasOwnEvent(ctx: InvocationContext, agentName: string): boolean {
  const events = ctx.session.events;
  for (let i = ctx.resumeFrom ?? events.length; i < events.length; i++) {
    const e = events[i]!;
    // The runner's record of a failure names the failing agent but is not the agent's own work.
    if (isOwnEvent(e, ctx, agentName) && e.errorCode === undefined) return true;
  }
  return false;
}

/**
 * Where a sequence of children stood: after the agent's last progress record (`agentState.next`),
 * or at the child that produced the latest event below it (that child resumes itself, and does
 * nothing if it had finished). Events before `from` are not considered.
 */
export function resumePosition(
  ctx: InvocationContext,
  agentName: string,
  children: readonly BaseAgent[],
  from: number,
): { child: number; from: number } | undefined {
  const events = ctx.session.events;
  const prefix = `${ctx.path}/`;
  for (let i = events.length - 1; i >= from; i--) {
    const e = events[i]!;
    if (e.invocationId !== ctx.invocationId) continue;
    const record = isOwnEvent(e, ctx, agentName) ? sequentialProgress(e.actions.agentState) : undefined;
    if (record) return { child: record.next, from: i + 1 };
    if (e.path.startsWith(prefix)) {
      const slash = e.path.indexOf('/', prefix.length);
      const name = e.path.slice(prefix.length, slash < 0 ? undefined : slash);
      const child = children.findIndex((c) => c.name === name);
      if (child >= 0) return { child, from };
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
    if (isOwnEvent(e, ctx, agentName) && e.actions.agentState) out.push(e.actions.agentState);
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
