import type { Event } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext, LoopScope } from './invocation-context.js';
import { asAgentState, loopProgress } from './progress.js';
import { isPause, lastCheckpoint, lastOutputOnBranch, resumePosition } from './replay.js';
import type { AgentKind } from './agent-outline.js';
import { ChildStop } from './child-stop.js';
import { generatorOf, type EventSink } from './event-sink.js';

/** Options of {@link LoopAgent}. */
export interface LoopAgentOptions extends BaseAgentOptions {
  /** Iterations before the loop stops by itself. Unset: until a child escalates (or a run limit). */
  maxIterations?: number;
}

/** Why a loop stopped, recorded as `agentState.stopReason` on its final event. */
export type LoopStopReason = 'escalated' | 'maxIterations';

/**
 * Runs its sub-agents in order, again and again, until `maxIterations` or until a descendant
 * escalates (`actions.escalate`, e.g. the `exitLoop` tool). Escalation stops this loop only,
 * right after the escalating event; an enclosing workflow carries on. The final event records
 * `agentState: { stopReason }` and carries the last child output.
 *
 * @example
 * const refine = new LoopAgent({ name: 'CodeRefinementLoop', maxIterations: 5, subAgents: [refiner, checker, stopChecker] });
 */
export class LoopAgent extends BaseAgent {
  readonly maxIterations: number | undefined;

  constructor(options: LoopAgentOptions) {
    super(options);
    const max = options.maxIterations;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new ConfigurationError(
        `LoopAgent '${options.name}' has maxIterations ${JSON.stringify(max)}; use a whole number of at least 1, or leave it unset to loop until a child escalates.`,
      );
    }
    this.maxIterations = max;
  }

  override get kind(): AgentKind {
    return 'loop';
  }

  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runIterations(ctx, sink));
  }

  protected override runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsyncImpl !== LoopAgent.prototype.runAsyncImpl) return super.runImplInto(ctx, sink);
    return this.runIterations(ctx, sink);
  }

  private async runIterations(ctx: InvocationContext, sink: EventSink): Promise<void> {
    const scope: LoopScope = { escalated: false };
    const loopCtx = ctx.fresh().with({ loopScope: scope });
    const children = this.subAgents;
    let output: unknown;
    let iteration = 0;
    let start = 0;
    let resumeCtx: InvocationContext | undefined;
    if (ctx.resumeFrom !== undefined) {
      const checkpoint = lastCheckpoint(ctx, this.name);
      const record = loopProgress(checkpoint?.state);
      if (record && 'stopReason' in record) return; // it had already finished
      let from = ctx.resumeFrom;
      if (checkpoint && record) {
        iteration = record.iteration;
        start = record.next;
        from = checkpoint.index + 1;
        if (start >= children.length) {
          iteration++;
          start = 0;
        }
      }
      const position = resumePosition(ctx, this.name, children, from);
      if (position) start = position.child;
      output = lastOutputOnBranch(ctx, ctx.branch);
      resumeCtx = loopCtx.with({ resumeFrom: from });
    }
    let paused = false;
    // The escalating event is the last one taken from the child: the rest of its steps are stopped.
    const escalation = new ChildStop();
    const stopChild = (): never => escalation.stop();
    const childSink: EventSink = (event) => {
      if (event.output !== undefined) output = event.output;
      if (isPause(event)) paused = true;
      // The escalating event's author marked the scope on its way up, before it reached this sink.
      return scope.escalated ? sink(event).then(stopChild) : sink(event);
    };
    while (!scope.escalated && (this.maxIterations === undefined || iteration < this.maxIterations)) {
      for (let i = start; i < children.length && !scope.escalated; i++) {
        ctx.throwIfAborted();
        const child = children[i]!;
        const childCtx = resumeCtx && i === start ? resumeCtx : loopCtx;
        resumeCtx = undefined;
        try {
          await child.runInto(childCtx, childSink);
        } catch (error) {
          if (!escalation.caught(error)) throw error;
        }
        if (paused) return;
        // Progress: the end of each iteration, and after custom agents (built-in ones show it themselves).
        if (!scope.escalated && (i === children.length - 1 || !child.resumable)) {
          await sink(this.createEvent(ctx, { actions: { agentState: asAgentState({ iteration, next: i + 1 }) } }));
        }
      }
      start = 0;
      iteration++;
      if (children.length === 0) break;
    }
    const stopReason: LoopStopReason = scope.escalated ? 'escalated' : 'maxIterations';
    const final = this.createEvent(ctx, {
      actions: { agentState: asAgentState({ stopReason, iterations: iteration }), endOfAgent: true },
    });
    if (output !== undefined) final.output = output;
    await sink(final);
  }
}
