import type { Event } from '../events/event.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { asAgentState } from './progress.js';
import { isPause, resumePosition } from './replay.js';
import type { AgentKind } from './agent-outline.js';
import { ChildStop } from './child-stop.js';
import { generatorOf, type EventSink } from './event-sink.js';

/** Options of {@link SequentialAgent}. */
export type SequentialAgentOptions = BaseAgentOptions;

/**
 * Runs its sub-agents one after another in the same context and state, so each step can read
 * what the previous ones stored (e.g. with `outputKey`). Its output is the last child's output.
 * A resumed run continues at the step where it stopped; finished steps are not repeated.
 *
 * @example
 * const pipeline = new SequentialAgent({ name: 'CityInfo', subAgents: [findCapital, describeCity] });
 */
export class SequentialAgent extends BaseAgent {
  constructor(options: SequentialAgentOptions) {
    super(options);
  }

  override get kind(): AgentKind {
    return 'sequential';
  }

  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runSteps(ctx, sink));
  }

  protected override runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsyncImpl !== SequentialAgent.prototype.runAsyncImpl) return super.runImplInto(ctx, sink);
    return this.runSteps(ctx, sink);
  }

  private async runSteps(ctx: InvocationContext, sink: EventSink): Promise<void> {
    const children = this.subAgents;
    let start = 0;
    let resumeCtx: InvocationContext | undefined;
    if (ctx.resumeFrom !== undefined) {
      const position = resumePosition(ctx, this.name, children, ctx.resumeFrom);
      if (position) start = position.child;
      resumeCtx = ctx.with({ resumeFrom: position?.from ?? ctx.resumeFrom });
    }
    const freshCtx = ctx.fresh();
    let paused = false;
    // An escalation ends the steps of the nearest enclosing loop's iteration, this one included.
    const loopScope = ctx.loopScope;
    const escalation = new ChildStop();
    const stopChild = (): never => escalation.stop();
    const stepSink: EventSink = (event) => {
      if (isPause(event)) paused = true;
      // The escalating event's author marked the scope on its way up, before it reached this sink.
      return loopScope?.escalated ? sink(event).then(stopChild) : sink(event);
    };
    for (let i = start; i < children.length; i++) {
      ctx.throwIfAborted();
      const child = children[i]!;
      try {
        await child.runInto(i === start && resumeCtx ? resumeCtx : freshCtx, stepSink);
      } catch (error) {
        if (escalation.caught(error)) return;
        throw error;
      }
      if (paused) return;
      // Built-in agents show in their own events that they finished; after others, record it.
      if (!child.resumable)
        await sink(this.createEvent(ctx, { actions: { agentState: asAgentState({ next: i + 1 }) } }));
    }
  }
}
