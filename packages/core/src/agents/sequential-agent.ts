import type { Event } from '../events/event.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { asAgentState } from './progress.js';
import { isPause, resumePosition } from './replay.js';
import type { AgentKind } from './agent-outline.js';

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
    const children = this.subAgents;
    let start = 0;
    let resumeCtx: InvocationContext | undefined;
    if (ctx.resumeFrom !== undefined) {
      const position = resumePosition(ctx, this.name, children, ctx.resumeFrom);
      if (position) start = position.child;
      resumeCtx = ctx.with({ resumeFrom: position?.from ?? ctx.resumeFrom });
    }
    const freshCtx = ctx.fresh();
    for (let i = start; i < children.length; i++) {
      ctx.throwIfAborted();
      const child = children[i]!;
      let paused = false;
      for await (const event of child.runAsync(i === start && resumeCtx ? resumeCtx : freshCtx)) {
        yield event;
        if (isPause(event)) paused = true;
        // An escalation ends the steps of the nearest enclosing loop's iteration, this one included.
        if (ctx.loopScope?.escalated) return;
      }
      if (paused) return;
      // Built-in agents show in their own events that they finished; after others, record it.
      if (!child.resumable) yield this.createEvent(ctx, { actions: { agentState: asAgentState({ next: i + 1 }) } });
    }
  }
}
