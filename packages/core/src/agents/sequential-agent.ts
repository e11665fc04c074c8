import type { Event } from '../events/event.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { isPause, lastCheckpoint } from './replay.js';

/** Options of {@link SequentialAgent}. */
export type SequentialAgentOptions = BaseAgentOptions;

/**
 * Runs its sub-agents one after another in the same context and state, so each step can read
 * what the previous ones stored (e.g. with `outputKey`). Its output is the last child's output.
 * After each child it records its progress (`agentState.next`) so an interrupted or crashed run
 * resumes at the right step.
 *
 * @example
 * const pipeline = new SequentialAgent({ name: 'CityInfo', subAgents: [findCapital, describeCity] });
 */
export class SequentialAgent extends BaseAgent {
  constructor(options: SequentialAgentOptions) {
    super(options);
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const children = this.subAgents;
    let start = 0;
    let resumeCtx: InvocationContext | undefined;
    if (ctx.resumeFrom !== undefined) {
      const checkpoint = lastCheckpoint(ctx, this.name);
      if (checkpoint) start = Number(checkpoint.state.next ?? 0);
      resumeCtx = ctx.with({ resumeFrom: checkpoint ? checkpoint.index + 1 : ctx.resumeFrom });
    }
    const freshCtx = ctx.fresh();
    for (let i = start; i < children.length; i++) {
      let paused = false;
      for await (const event of children[i]!.runAsync(i === start && resumeCtx ? resumeCtx : freshCtx)) {
        yield event;
        if (isPause(event)) paused = true;
        // An escalation ends the steps of the nearest enclosing loop's iteration, this one included.
        if (ctx.loopScope?.escalated) return;
      }
      if (paused) return;
      yield this.createEvent(ctx, {
        actions: { agentState: { next: i + 1 }, ...(i + 1 === children.length ? { endOfAgent: true } : {}) },
      });
    }
  }
}
