import type { PastStep } from './plan-schema.js';

/** Why a {@link PlanExecuteAgent} stopped, recorded as `agentState.stopReason` on its final event. */
export type PlanExecuteStopReason = 'responded' | 'planCompleted' | 'maxIterations';

/**
 * A PlanExecuteAgent's progress record (`actions.agentState` of its own events). Before each
 * executor or replanner run it records what runs next, the remaining plan and the finished steps,
 * so a resumed run continues that run instead of planning again; its final event records why it
 * stopped.
 */
export type PlanExecuteProgress =
  | { next: 'execute' | 'replan'; iteration: number; plan: string[]; pastSteps: PastStep[] }
  | { stopReason: PlanExecuteStopReason; iterations: number };

const STOP_REASONS: readonly string[] = ['responded', 'planCompleted', 'maxIterations'];
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const isPastStep = (value: unknown): value is PastStep =>
  typeof value === 'object' && value !== null && typeof (value as PastStep).step === 'string';

/** Reads a record back; undefined for anything of another shape. */
export function planExecuteProgress(state: Record<string, unknown> | undefined): PlanExecuteProgress | undefined {
  if (!state) return undefined;
  if (typeof state.stopReason === 'string' && STOP_REASONS.includes(state.stopReason) && isCount(state.iterations)) {
    return { stopReason: state.stopReason as PlanExecuteStopReason, iterations: state.iterations };
  }
  if (
    (state.next === 'execute' || state.next === 'replan') &&
    isCount(state.iteration) &&
    Array.isArray(state.plan) &&
    Array.isArray(state.pastSteps)
  ) {
    const plan = state.plan.filter((s): s is string => typeof s === 'string');
    const pastSteps = state.pastSteps.filter(isPastStep);
    return { next: state.next, iteration: state.iteration, plan, pastSteps };
  }
  return undefined;
}
