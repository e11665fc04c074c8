import {
  BaseAgent,
  ConfigurationError,
  ModelError,
  type AgentKind,
  type BaseAgentOptions,
  type Event,
  type InvocationContext,
} from '@troupe/core';

/** Options of {@link RetryAgent}. */
export interface RetryAgentOptions extends BaseAgentOptions {
  /** Runs of the sub-agent in all, the first included. @default 3 */
  maxAttempts?: number;
}

/**
 * A workflow agent of kind `'retry'`: runs its one sub-agent, and runs it again when it fails with a
 * {@link ModelError} (an overloaded or unreachable model) before it produced any event, up to
 * `maxAttempts` runs. Any other error, a failure after an event (a retry would repeat what was
 * already said or done), and cancellation end it at once. A pause for a human ends it too; a resume
 * continues the sub-agent where it paused.
 *
 * @example
 * const steady = new RetryAgent({ name: 'Steady', maxAttempts: 3, subAgents: [answerer] });
 */
export class RetryAgent extends BaseAgent {
  readonly maxAttempts: number;

  constructor(options: RetryAgentOptions) {
    super(options);
    if (this.subAgents.length !== 1) {
      throw new ConfigurationError(
        `RetryAgent '${this.name}' has ${this.subAgents.length} sub-agents; give it exactly one, the agent to retry (wrap several in a SequentialAgent).`,
      );
    }
    const max = options.maxAttempts ?? 3;
    if (!Number.isInteger(max) || max < 1) {
      throw new ConfigurationError(
        `RetryAgent '${this.name}' has maxAttempts ${JSON.stringify(max)}; use a whole number of at least 1 (default 3).`,
      );
    }
    this.maxAttempts = max;
  }

  /** What the server's graph, the dev UI, the A2A card and tracing call this kind of agent. */
  override get kind(): AgentKind {
    return 'retry';
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const agent = this.subAgents[0]!;
    for (let attempt = 1; ; attempt++) {
      ctx.throwIfAborted(); // a cancelled run starts no further attempt
      let yielded = false;
      try {
        // The first attempt may be a resume (the sub-agent continues from its own events); a retry starts afresh.
        for await (const event of agent.runAsync(attempt === 1 ? ctx : ctx.fresh())) {
          yielded = true;
          yield event;
        }
        return;
      } catch (error) {
        if (yielded || !(error instanceof ModelError) || attempt >= this.maxAttempts || ctx.abortSignal.aborted)
          throw error;
      }
    }
  }
}

// Definition files name the module (`type: ./retry-agent.ts`); its default export is the class.
export default RetryAgent;
