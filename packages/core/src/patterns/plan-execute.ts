import { BaseAgent, type BaseAgentOptions } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { isPause, lastCheckpoint } from '../agents/replay.js';
import { ConfigurationError, OutputValidationError } from '../errors.js';
import type { Event } from '../events/event.js';
import { planExecuteProgress, type PlanExecuteProgress, type PlanExecuteStopReason } from './plan-progress.js';
import { PlanValidationError, readPlan, readReplan, type PastStep } from './plan-schema.js';
import type { AgentKind } from '../agents/agent-outline.js';

/** Options of {@link PlanExecuteAgent}. */
export interface PlanExecuteAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /**
   * Writes the plan. Its output must be `{ steps: string[] }`: give it `outputSchema: planSchema`
   * (an agent without an `outputSchema` is rejected).
   */
  planner: BaseAgent;
  /** Performs one step at a time (usually an LlmAgent with tools); its output is the step's result. */
  executor: BaseAgent;
  /**
   * After each step, gives the final answer (`respond`) or the steps still to do (`steps`): give
   * it `outputSchema: replanSchema`. Without one, the plan's steps run in order and the last
   * step's result is the answer.
   */
  replanner?: BaseAgent;
  /** Steps executed (each followed by a replan) before the agent stops by itself. @default 10 */
  maxIterations?: number;
}

/**
 * Plan, execute, replan: the planner breaks the request into steps (`state.plan`), the executor
 * performs the first open step, and the replanner (if any) looks at what was done
 * (`state.pastSteps`) and either answers (`respond`) or revises the remaining steps. It stops on a
 * final answer, when no steps remain, or after `maxIterations` steps; its final event records
 * `agentState: { stopReason, iterations }` and carries the output (the answer, or the last step's
 * result). It streams, persists, is cancelled and resumes like the built-in workflow agents: after
 * an interrupt inside the executor it continues the same step, without planning again.
 *
 * @example
 * const trip = new PlanExecuteAgent({
 *   name: 'TripPlanner',
 *   planner: new LlmAgent({ name: 'Planner', instruction: 'Break the trip request into steps.', outputSchema: planSchema }),
 *   executor: new LlmAgent({ name: 'Executor', instruction: 'Do the step you are given.', tools: [searchFlights, findHotels] }),
 *   replanner: new LlmAgent({ name: 'Replanner', instruction: 'Answer, or list the steps still to do.', outputSchema: replanSchema }),
 * });
 */
export class PlanExecuteAgent extends BaseAgent {
  readonly planner: BaseAgent;
  readonly executor: BaseAgent;
  readonly replanner: BaseAgent | undefined;
  readonly maxIterations: number;

  constructor(options: PlanExecuteAgentOptions) {
    super({ ...options, subAgents: checkedSubAgents(options) });
    this.planner = options.planner;
    this.executor = options.executor;
    this.replanner = options.replanner;
    this.maxIterations = options.maxIterations ?? 10;
  }

  override get kind(): AgentKind {
    return 'plan_execute';
  }

  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    let next: 'plan' | 'execute' | 'replan' = 'plan';
    let plan: string[] = [];
    let pastSteps: PastStep[] = [];
    let iteration = 0;
    // The child that was in flight when the run paused or crashed resumes from its own events.
    let resumeCtx: InvocationContext | undefined;
    if (ctx.isResuming) {
      const checkpoint = lastCheckpoint(ctx, this.name);
      const record = planExecuteProgress(checkpoint?.state);
      if (record && 'stopReason' in record) return; // it had finished
      if (record && checkpoint) {
        ({ next, plan, pastSteps, iteration } = record);
        resumeCtx = ctx.with({ resumeFrom: checkpoint.index + 1 });
      } else {
        resumeCtx = ctx; // the planner was in flight
      }
    }
    const freshCtx = ctx.fresh();
    for (;;) {
      ctx.throwIfAborted();
      const runCtx = resumeCtx ?? freshCtx;
      resumeCtx = undefined;
      if (next === 'plan') {
        const run = yield* this.runChild(this.planner, runCtx, 'planner');
        if (run.paused) return;
        const read = readPlan(run.output);
        if ('problem' in read) throw this.planError('planner', this.planner, read.problem);
        plan = read.steps;
        next = 'execute';
        yield this.record(ctx, { next, iteration, plan, pastSteps }, `Step ${iteration + 1}: ${plan[0]!}`);
        continue;
      }
      if (next === 'execute') {
        const run = yield* this.runChild(this.executor, runCtx, 'executor');
        if (run.paused) return;
        pastSteps = [...pastSteps, { step: plan[0] ?? '', result: run.output ?? null }];
        plan = plan.slice(1);
        iteration++;
        if (this.replanner) {
          next = 'replan';
          yield this.record(ctx, { next, iteration, plan, pastSteps });
          continue;
        }
      } else {
        const run = yield* this.runChild(this.replanner!, runCtx, 'replanner');
        if (run.paused) return;
        const read = readReplan(run.output);
        if ('problem' in read) throw this.planError('replanner', this.replanner!, read.problem);
        if ('respond' in read) {
          yield this.finish(ctx, 'responded', iteration, plan, pastSteps, read.respond);
          return;
        }
        plan = read.steps;
      }
      const lastResult = pastSteps.at(-1)?.result;
      if (plan.length === 0) {
        yield this.finish(ctx, 'planCompleted', iteration, plan, pastSteps, lastResult);
        return;
      }
      if (iteration >= this.maxIterations) {
        yield this.finish(ctx, 'maxIterations', iteration, plan, pastSteps, lastResult);
        return;
      }
      next = 'execute';
      yield this.record(ctx, { next, iteration, plan, pastSteps }, `Step ${iteration + 1}: ${plan[0]!}`);
    }
  }

  /** Runs one child, forwarding its events; its output, and whether it paused for a human. */
  private async *runChild(
    child: BaseAgent,
    runCtx: InvocationContext,
    role: 'planner' | 'executor' | 'replanner',
  ): AsyncGenerator<Event, { output: unknown; paused: boolean }, undefined> {
    let output: unknown;
    let paused = false;
    try {
      for await (const event of child.runAsync(runCtx)) {
        if (event.output !== undefined) output = event.output;
        if (isPause(event)) paused = true;
        yield event;
      }
    } catch (error) {
      if (error instanceof OutputValidationError && role !== 'executor')
        throw this.planError(role, child, error.message, error);
      throw error;
    }
    // A child that had finished before a crash yields nothing when resumed: take its stored output.
    if (output === undefined && runCtx.isResuming) output = storedOutput(runCtx, `${runCtx.path}/${child.name}`);
    return { output, paused };
  }

  /** A progress record; with `step`, also the message that tells the executor what to do next. */
  private record(
    ctx: InvocationContext,
    progress: Extract<PlanExecuteProgress, { next: string }>,
    step?: string,
  ): Event {
    return this.createEvent(ctx, {
      ...(step === undefined ? {} : { content: { role: 'model' as const, parts: [{ text: step }] } }),
      actions: {
        agentState: progress as unknown as Record<string, unknown>,
        stateDelta: stateOf(progress.plan, progress.pastSteps),
      },
    });
  }

  private finish(
    ctx: InvocationContext,
    stopReason: PlanExecuteStopReason,
    iterations: number,
    plan: string[],
    pastSteps: PastStep[],
    output: unknown,
  ): Event {
    const progress: PlanExecuteProgress = { stopReason, iterations };
    const event = this.createEvent(ctx, {
      ...(stopReason === 'responded' && typeof output === 'string'
        ? { content: { role: 'model' as const, parts: [{ text: output }] } }
        : {}),
      actions: {
        agentState: progress as unknown as Record<string, unknown>,
        stateDelta: stateOf(plan, pastSteps),
        endOfAgent: true,
      },
    });
    if (output !== undefined) event.output = output;
    return event;
  }

  private planError(
    role: 'planner' | 'replanner',
    child: BaseAgent,
    problem: string,
    cause?: unknown,
  ): PlanValidationError {
    const shape =
      role === 'planner'
        ? '{"steps": ["first step", "second step"]} with at least one step'
        : '{"respond": "the final answer"} or {"steps": ["the steps still to do"]}';
    const schema = role === 'planner' ? 'planSchema' : 'replanSchema';
    return new PlanValidationError(
      `PlanExecuteAgent '${this.name}' got no usable ${role === 'planner' ? 'plan' : 'replan'} from its ${role} '${child.name}' (after one repair attempt): ${problem}. ` +
        `Make the ${role}'s instruction ask for JSON like ${shape}, and give it outputSchema: ${schema}.`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** The state the pattern keeps: `plan` (the remaining steps) and `pastSteps`. */
function stateOf(plan: string[], pastSteps: PastStep[]): Record<string, unknown> {
  return { plan: { steps: plan }, pastSteps };
}

function storedOutput(ctx: InvocationContext, path: string): unknown {
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= (ctx.resumeFrom ?? events.length); i--) {
    const e = events[i]!;
    if (e.invocationId === ctx.invocationId && e.path === path && e.output !== undefined) return e.output;
  }
  return undefined;
}

function checkedSubAgents(options: PlanExecuteAgentOptions): BaseAgent[] {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `PlanExecuteAgent needs an options object such as { name, planner, executor }; got ${String(options)}.`,
    );
  }
  const name = String(options.name);
  const { planner, executor, replanner, maxIterations } = options;
  if (!(planner instanceof BaseAgent)) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}' has no planner (got ${describe(planner)}). Pass planner: an agent that answers { steps: string[] }, e.g. new LlmAgent({ name: 'Planner', instruction: '...', outputSchema: planSchema }).`,
    );
  }
  if (!(executor instanceof BaseAgent)) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}' has no executor (got ${describe(executor)}). Pass executor: the agent that performs one step, e.g. an LlmAgent with the tools the steps need.`,
    );
  }
  if (replanner !== undefined && !(replanner instanceof BaseAgent)) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}' has a replanner that is not an agent (${describe(replanner)}). Pass an agent with outputSchema: replanSchema, or leave replanner out.`,
    );
  }
  if (planner.outputSchema === undefined) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}': planner '${planner.name}' has no outputSchema, so its plan cannot be checked. Give it outputSchema: planSchema (from '@troupe/core/patterns').`,
    );
  }
  if (replanner && replanner.outputSchema === undefined) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}': replanner '${replanner.name}' has no outputSchema, so its decision cannot be checked. Give it outputSchema: replanSchema (from '@troupe/core/patterns').`,
    );
  }
  if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1)) {
    throw new ConfigurationError(
      `PlanExecuteAgent '${name}' has maxIterations ${JSON.stringify(maxIterations)}; use a whole number of at least 1 (default 10).`,
    );
  }
  return replanner ? [planner, executor, replanner] : [planner, executor];
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

export { PlanValidationError, planSchema, replanSchema, type PastStep, type Plan, type Replan } from './plan-schema.js';
export type { PlanExecuteProgress, PlanExecuteStopReason } from './plan-progress.js';
