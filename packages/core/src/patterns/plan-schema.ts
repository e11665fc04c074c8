import { z } from 'zod';
import { TroupeError } from '../errors.js';

/**
 * The output schema of a {@link PlanExecuteAgent}'s planner: the steps of the plan, in order.
 * Give it to the planner as `outputSchema: planSchema`.
 *
 * @example
 * const planner = new LlmAgent({ name: 'Planner', instruction: 'Break the request into steps.', outputSchema: planSchema });
 */
export const planSchema = z.object({
  steps: z.array(z.string().min(1)).min(1).describe('The steps still to do, in order; each one short instruction.'),
});

/**
 * The output schema of a {@link PlanExecuteAgent}'s replanner: either `respond` (the final answer
 * to the user, which ends the loop) or `steps` (the steps still to do, replacing the remaining plan).
 * Give it to the replanner as `outputSchema: replanSchema`.
 */
export const replanSchema = z
  .object({
    respond: z.string().optional().describe('The final answer to the user, when the request is done.'),
    steps: z
      .array(z.string().min(1))
      .optional()
      .describe('The steps still to do, in order, when the request is not done yet.'),
  })
  .refine((value) => (value.respond !== undefined && value.respond.trim() !== '') || value.steps !== undefined, {
    message: "give either 'respond' (the final answer) or 'steps' (the steps still to do)",
  });

/** A plan: `state.plan` of a {@link PlanExecuteAgent}. */
export type Plan = z.infer<typeof planSchema>;

/** What a replanner decided. */
export type Replan = z.infer<typeof replanSchema>;

/** One executed step and the executor's output for it: an entry of `state.pastSteps`. */
export interface PastStep {
  step: string;
  result: unknown;
}

/** A planner or replanner gave no usable plan, even after the repair attempt its outputSchema allows. */
export class PlanValidationError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PLAN_INVALID', message, options);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isStepList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((s) => typeof s === 'string' && s.trim() !== '');

/** The steps of a planner's output, or why it is not a plan. */
export function readPlan(output: unknown): { steps: string[] } | { problem: string } {
  if (!isObject(output) || !isStepList(output.steps))
    return { problem: `its output is ${brief(output)}, not { steps: string[] }` };
  if (output.steps.length === 0) return { problem: 'its plan has no steps' };
  return { steps: output.steps };
}

/** A replanner's decision: the final answer, or the new remaining steps (maybe none). */
export function readReplan(output: unknown): { respond: string } | { steps: string[] } | { problem: string } {
  if (isObject(output) && typeof output.respond === 'string' && output.respond.trim() !== '')
    return { respond: output.respond };
  if (isObject(output) && isStepList(output.steps)) return { steps: output.steps };
  return { problem: `its output is ${brief(output)}, which has neither a non-empty 'respond' nor a 'steps' list` };
}

function brief(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
