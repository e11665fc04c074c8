import { BaseAgent, createEvent, type BaseAgentOptions, type Event, type InvocationContext } from '@troupe/core';

/** Options of {@link EscalationLadder}. */
export interface EscalationLadderOptions extends BaseAgentOptions {
  /** Whether a rung's output settles the request; otherwise the next rung is tried. */
  accept(output: unknown): boolean;
}

/** The ladder's progress record: how many rungs finished, and whether the ladder is done. */
type LadderProgress = { tried: number; done: boolean };

/**
 * A custom workflow agent: tries its sub-agents ("rungs") one after another, cheapest first, until
 * one's output is accepted. It follows the resume protocol of docs/agents.md: it checks for
 * cancellation before each rung, records its progress after each rung, stops when a rung pauses for
 * a human, and on resume continues at the rung that was in flight, in any process.
 */
export class EscalationLadder extends BaseAgent {
  private readonly accept: (output: unknown) => boolean;

  constructor(options: EscalationLadderOptions) {
    super(options);
    this.accept = (output) => options.accept(output);
  }

  // It records its own progress (and a final record), so parents need not record any after it.
  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    let start = 0;
    if (ctx.isResuming) {
      const progress = ctx.lastProgress<LadderProgress>();
      if (progress?.done) return; // it had finished before the pause or crash
      start = progress?.tried ?? 0;
    }
    for (let i = start; i < this.subAgents.length; i++) {
      ctx.throwIfAborted(); // a cancelled run starts no further rung
      const rung = this.subAgents[i]!;
      // The rung that was in flight resumes from its own events; later rungs start fresh.
      let output: unknown;
      let paused = false;
      for await (const event of rung.runAsync(i === start ? ctx : ctx.fresh())) {
        if (event.output !== undefined) output = event.output;
        if (event.interrupt) paused = true;
        yield event;
      }
      if (paused) return; // waiting for a human: resume re-enters here, at this rung
      const done = this.accept(output);
      const progress: LadderProgress = { tried: i + 1, done };
      yield createEvent({ ...(done ? { output } : {}), actions: { agentState: progress } });
      if (done) return;
    }
    const progress: LadderProgress = { tried: this.subAgents.length, done: true };
    yield createEvent({
      content: { role: 'model', parts: [{ text: 'No rung of the ladder settled the request.' }] },
      actions: { agentState: progress },
    });
  }
}
