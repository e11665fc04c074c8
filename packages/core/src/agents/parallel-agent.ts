import type { Event } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import { runTasks } from '../utils/run-tasks.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { asAgentState, parallelProgress } from './progress.js';
import { checkpoints, isPause, lastOutputOnBranch } from './replay.js';
import type { AgentKind } from './agent-outline.js';
import { generatorOf, type EventSink } from './event-sink.js';

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
      throw new ConfigurationError(
        `ParallelAgent '${options.name}' has maxConcurrency ${JSON.stringify(max)}; use a whole number of at least 1, or leave it unset to run all children at once.`,
      );
    }
    this.maxConcurrency = max;
  }

  override get fansIn(): boolean {
    return true;
  }

  override get kind(): AgentKind {
    return 'parallel';
  }

  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runBranches(ctx, sink));
  }

  protected override runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsyncImpl !== ParallelAgent.prototype.runAsyncImpl) return super.runImplInto(ctx, sink);
    return this.runBranches(ctx, sink);
  }

  private async runBranches(ctx: InvocationContext, sink: EventSink): Promise<void> {
    const children = this.subAgents;
    const done = new Set<string>();
    const outputs = new Map<string, unknown>();
    if (ctx.resumeFrom !== undefined) {
      // Branches that finished before the pause are not run again.
      for (const state of checkpoints(ctx, this.name)) {
        const record = parallelProgress(state);
        if (!record) continue;
        if (Array.isArray(record.completed)) return; // the whole fan-out had finished
        done.add(record.completed);
      }
      for (const name of done) outputs.set(name, lastOutputOnBranch(ctx, ctx.childBranch(this.name, name)));
    }
    const pending = children.filter((child) => !done.has(child.name));
    const paused = await runTasks(
      pending.length,
      this.maxConcurrency ?? pending.length,
      ctx.abortSignal,
      `ParallelAgent '${this.name}'`,
      (i, signal) => this.runBranch(ctx, pending[i]!, signal, outputs, sink),
    );
    ctx.throwIfAborted();
    // A paused branch has not finished; it resumes later and the others are not re-run.
    if (paused.includes(true)) return;
    const output: Record<string, unknown> = {};
    for (const child of children) {
      // A branch that had finished before a resume re-enters without events; read its output back.
      const value = outputs.has(child.name)
        ? outputs.get(child.name)
        : ctx.resumeFrom !== undefined
          ? lastOutputOnBranch(ctx, ctx.childBranch(this.name, child.name))
          : undefined;
      if (value !== undefined) output[child.name] = value;
    }
    await sink(
      this.createEvent(ctx, {
        output,
        actions: { agentState: asAgentState({ completed: children.map((c) => c.name) }), endOfAgent: true },
      }),
    );
  }

  /** Runs one child on its own branch; returns true when it paused for a human. */
  private async runBranch(
    ctx: InvocationContext,
    child: BaseAgent,
    signal: AbortSignal,
    outputs: Map<string, unknown>,
    sink: EventSink,
  ): Promise<boolean> {
    // On resume, unfinished branches pick up where they stopped (their events are on their own branch).
    const childCtx = ctx.with({ branch: ctx.childBranch(this.name, child.name), abortSignal: signal });
    let paused = false;
    await child.runInto(childCtx, (event) => {
      if (event.output !== undefined && !event.partial) outputs.set(child.name, event.output);
      if (isPause(event)) paused = true;
      return sink(event);
    });
    // Built-in agents show in their own events that they finished; after others, record it.
    if (!paused && !child.resumable)
      await sink(this.createEvent(ctx, { actions: { agentState: asAgentState({ completed: child.name }) } }));
    return paused;
  }
}
