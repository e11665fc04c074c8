import type { Event } from '../events/event.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';

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
    for (let i = 0; i < children.length; i++) {
      for await (const event of children[i]!.runAsync(ctx)) {
        yield event;
        // An escalation ends the steps of the nearest enclosing loop's iteration, this one included.
        if (ctx.loopScope?.escalated) return;
      }
      yield this.createEvent(ctx, {
        actions: { agentState: { next: i + 1 }, ...(i + 1 === children.length ? { endOfAgent: true } : {}) },
      });
    }
  }
}
