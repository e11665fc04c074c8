import type { Event } from '../events/event.js';
import { ConfigurationError, RunCancelledError } from '../errors.js';
import { EventChannel } from '../utils/event-channel.js';
import { linkedAbortController } from '../utils/abort.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { checkpoints, isPause, lastOutputOnBranch } from './replay.js';

/** Options of {@link ParallelAgent}. */
export interface ParallelAgentOptions extends BaseAgentOptions {
  /** How many children run at once. @default all of them */
  maxConcurrency?: number;
}

/**
 * Runs its sub-agents concurrently, each on its own branch (`<branch>.<name>.<child>`), all sharing
 * the session state. Events interleave as they happen; each is appended before its branch goes on,
 * so no state write is lost. The agents after it see what every branch said (fan-in). If one child
 * fails, the others are aborted and the error is rethrown. Output: `{ [childName]: childOutput }`.
 *
 * @example
 * const gather = new ParallelAgent({ name: 'InfoGatherer', subAgents: [weatherFetcher, newsFetcher] });
 */
export class ParallelAgent extends BaseAgent {
  readonly maxConcurrency: number | undefined;

  constructor(options: ParallelAgentOptions) {
    super(options);
    const max = options.maxConcurrency;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new ConfigurationError(`ParallelAgent '${options.name}' has maxConcurrency ${JSON.stringify(max)}; use a whole number of at least 1, or leave it unset to run all children at once.`);
    }
    this.maxConcurrency = max;
  }

  override get fansIn(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const children = this.subAgents;
    const done = new Set<string>();
    const outputs = new Map<string, unknown>();
    if (ctx.resumeFrom !== undefined) {
      // Branches that finished before the pause are not run again.
      for (const state of checkpoints(ctx, this.name)) {
        if (Array.isArray(state.completed)) return; // the whole fan-out had finished
        if (typeof state.completed === 'string') done.add(state.completed);
      }
      for (const name of done) outputs.set(name, lastOutputOnBranch(ctx, ctx.childBranch(this.name, name)));
    }
    const pending = children.filter((child) => !done.has(child.name));
    let paused = false;
    const controller = linkedAbortController(ctx.abortSignal);
    const channel = new EventChannel();
    let failure: { error: unknown } | undefined;

    const runChild = async (child: BaseAgent): Promise<void> => {
      // On resume, unfinished branches pick up where they stopped (their events are on their own branch).
      const childCtx = ctx.with({ branch: ctx.childBranch(this.name, child.name), abortSignal: controller.signal });
      try {
        let branchPaused = false;
        for await (const event of child.runAsync(childCtx)) {
          if (event.output !== undefined && !event.partial) outputs.set(child.name, event.output);
          if (isPause(event)) branchPaused = true;
          await channel.push(event);
        }
        // A paused branch has not finished; it resumes later and the others are not re-run.
        if (branchPaused) {
          paused = true;
          return;
        }
        await channel.push(this.createEvent(ctx, { actions: { agentState: { completed: child.name } } }));
      } catch (error) {
        if (!failure) {
          failure = { error };
          controller.abort(new RunCancelledError(`Cancelled because sibling branch '${child.name}' of ParallelAgent '${this.name}' failed.`, { cause: error }));
        }
      }
    };

    const running = runWithConcurrency(pending, this.maxConcurrency ?? pending.length, runChild, () => failure !== undefined || controller.signal.aborted);
    let finished = false;
    try {
      yield* channel.drain(running, () => {
        controller.abort(new RunCancelledError(`ParallelAgent '${this.name}' was stopped.`));
        return controller.signal.reason;
      });
      await running;
      finished = true;
    } finally {
      controller.dispose();
      // Leave no branch running behind us, even when the consumer stopped early.
      if (!finished) await running.catch(() => undefined);
    }
    if (failure) throw failure.error;
    ctx.throwIfAborted();
    if (paused) return;
    const output: Record<string, unknown> = {};
    for (const child of children) if (outputs.has(child.name)) output[child.name] = outputs.get(child.name);
    yield this.createEvent(ctx, { output, actions: { agentState: { completed: children.map((c) => c.name) }, endOfAgent: true } });
  }
}

/** Runs `task` over `items` with at most `limit` at once; stops starting new ones once `stop()` says so. */
async function runWithConcurrency<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>, stop: () => boolean): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) await task(items[next++]!);
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, items.length); i++) workers.push(worker());
  await Promise.all(workers);
}
