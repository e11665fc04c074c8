import type { Content } from '../events/content.js';
import { contentText } from '../events/content.js';
import type { Event, EventInit } from '../events/event.js';
import { createEvent } from '../events/event.js';
import { AgentTreeError, RunCancelledError } from '../errors.js';
import type { Schema } from '../utils/schema.js';
import { firstResult, type OneOrMany } from '../runner/plugin-manager.js';
import type { AgentOutcome } from '../runner/base-plugin.js';
import type { AgentKind, AgentOutline } from './agent-outline.js';
import { assertValidAgentName } from './agent-names.js';
import { CallbackContext } from './callback-context.js';
import type { InvocationContext } from './invocation-context.js';
import { inputToText } from './structured-input.js';
import { drainInto, generatorOf, isEventsStopped, type EventSink } from './event-sink.js';

/** An agent callback: returning content short-circuits (before) or appends a final event (after). */
export type AgentCallback = (
  context: CallbackContext,
) => Content | undefined | void | Promise<Content | undefined | void>;

/** Options every agent takes. */
export interface BaseAgentOptions {
  /** A JavaScript identifier, unique in the tree; not `user`. */
  name: string;
  /** What the agent does; other agents' models read it to decide on transfers and tool calls. */
  description?: string;
  /** Children. Each gets this agent as its `parentAgent`; an agent can have only one parent. */
  subAgents?: readonly BaseAgent[];
  /** Runs before the agent; returning content skips the agent and emits that content. */
  beforeAgentCallback?: OneOrMany<AgentCallback>;
  /** Runs after the agent; returning content appends it as the agent's final event. */
  afterAgentCallback?: OneOrMany<AgentCallback>;
}

/**
 * The base of every agent. Subclasses implement {@link runAsyncImpl}; {@link runAsync} adds the
 * callbacks, plugins and event bookkeeping (invocation id, author, branch, path).
 *
 * @example
 * class StopChecker extends BaseAgent {
 *   async *runAsyncImpl(ctx: InvocationContext) {
 *     yield createEvent({ actions: { escalate: ctx.session.state.status === 'completed' } });
 *   }
 * }
 */
export abstract class BaseAgent {
  /**
   * `agent instanceof BaseAgent` holds for agents made by any copy of @troupe/core (e.g. an app's
   * own install next to the CLI's); subclasses keep the ordinary prototype check.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== BaseAgent) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[AGENT_BRAND] === true;
  }

  readonly name: string;
  readonly description: string;
  readonly subAgents: readonly BaseAgent[];
  readonly beforeAgentCallback: OneOrMany<AgentCallback> | undefined;
  readonly afterAgentCallback: OneOrMany<AgentCallback> | undefined;
  /** Schema of the structured input (used by AgentTool and TeamAgent). */
  readonly inputSchema?: Schema | undefined;
  /** Schema of the structured output. */
  readonly outputSchema?: Schema | undefined;
  private parent: BaseAgent | undefined;

  constructor(options: BaseAgentOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new AgentTreeError(
        `${new.target.name} needs an options object such as { name: 'MyAgent' }; got ${String(options)}.`,
      );
    }
    assertValidAgentName(options.name);
    this.name = options.name;
    this.description = options.description ?? '';
    this.beforeAgentCallback = options.beforeAgentCallback;
    this.afterAgentCallback = options.afterAgentCallback;
    const subAgents = options.subAgents ?? [];
    for (const child of subAgents) {
      if (!(child instanceof BaseAgent)) {
        throw new AgentTreeError(
          `Agent '${this.name}' got a sub-agent that is not an agent: ${describe(child)}. Pass agent instances.`,
        );
      }
      if (child.parent) {
        throw new AgentTreeError(
          `Agent '${child.name}' already has parent '${child.parent.name}' and cannot also be a sub-agent of '${this.name}'. An agent has one parent; create a second instance for the other place.`,
        );
      }
    }
    assertUniqueNames(this, subAgents);
    for (const child of subAgents) child.parent = this;
    this.subAgents = Object.freeze([...subAgents]);
  }

  /** The agent this one is a sub-agent of. */
  get parentAgent(): BaseAgent | undefined {
    return this.parent;
  }

  /** The top of this agent's tree. */
  get rootAgent(): BaseAgent {
    return this.parent ? this.parent.rootAgent : this;
  }

  /** This agent or a descendant with the given name. */
  findAgent(name: string): BaseAgent | undefined {
    return this.name === name ? this : this.findSubAgent(name);
  }

  /** A descendant (not this agent) with the given name. */
  findSubAgent(name: string): BaseAgent | undefined {
    for (const child of this.subAgents) {
      const found = child.findAgent(name);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * True for agents whose children run on their own branches and whose branches stay visible to the
   * agents that follow (fan-in). Internal.
   * @internal
   */
  get fansIn(): boolean {
    return false;
  }

  /**
   * True when the agent can tell from its own events whether it finished, so a resumed run can
   * re-enter it safely (it does nothing if it was done). When false (the default for custom
   * agents), the workflow agent above it stores a progress record after it finishes, so a resume
   * does not run it again. Override it in a custom agent that reads its own progress on resume.
   */
  get resumable(): boolean {
    return false;
  }

  /**
   * True when the agent works on its structured input (`ctx.input`, checked against its
   * `inputSchema`) rather than on the conversation, as a TeamAgent or a FunctionAgent does. Such an
   * agent with an `inputSchema` is not run on a text message (which stands for `{ request: text }`)
   * unless the schema names a `request` field: the runner refuses it, naming the shape, instead of
   * running the agent without its input. False (the default, and for LlmAgent, which reads the
   * message itself): a text message runs it. Override it in a custom agent that needs its input.
   */
  get runsOnInput(): boolean {
    return false;
  }

  /**
   * What kind of agent this is, read by whatever describes agents: the server's
   * `GET /apps/{app}/graph`, the dev UI, the A2A agent card and OpenTelemetry spans. Built-in agents
   * use the names of definition files' `type:` (`'llm'`, `'sequential'`, `'supervisor'`, …); a
   * subclass inherits its parent's kind, so a class extending BaseAgent directly is `'custom'` until
   * it overrides this getter.
   *
   * @example
   * class RaceAgent extends BaseAgent {
   *   override get kind(): AgentKind {
   *     return 'race';
   *   }
   * }
   */
  get kind(): AgentKind {
    return 'custom';
  }

  /**
   * The agents and tools that tools drawing agent trees (the graph, the dev UI, the A2A card) show
   * under this agent. Default: its sub-agents and no tools. Override it in an agent that runs agents
   * it does not hold as sub-agents, or that has tools (LlmAgent lists its tools and model).
   */
  outline(): AgentOutline {
    return { children: this.subAgents, tools: [] };
  }

  /** The user message that stands for a structured input given to this agent. */
  inputMessage(input: Record<string, unknown>): Content {
    return { role: 'user', parts: [{ text: inputToText(input) }] };
  }

  /**
   * Runs the agent with callbacks and plugins, yielding its events. Nothing starts once the run is
   * cancelled: the signal is checked before the agent begins.
   */
  async *runAsync(parentContext: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runWithCallbacks(parentContext, sink));
  }

  /**
   * {@link runAsync} without a generator: hands each event to `sink` and waits for it to be taken
   * (stored, and taken by the caller when the run is iterated). Workflow agents run their children
   * this way, so an event passes up the tree as plain calls; an agent that overrides `runAsync`
   * runs through its override.
   */
  runInto(parentContext: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsync !== BaseAgent.prototype.runAsync) return drainInto(this.runAsync(parentContext), sink);
    return this.runWithCallbacks(parentContext, sink);
  }

  private async runWithCallbacks(parentContext: InvocationContext, sink: EventSink): Promise<void> {
    parentContext.throwIfAborted();
    const ctx = parentContext.forAgent(this);
    let paused = false;
    const agentSink: EventSink = (event) => {
      this.stamp(event, ctx);
      if (event.actions.escalate && event.author === this.name && ctx.loopScope) ctx.loopScope.escalated = true;
      if (event.interrupt) paused = true;
      return sink(event);
    };
    // ctx.emit (from the agent, its callbacks and tools) hands custom events to this agent's sink.
    ctx.emitTo = agentSink;
    // How the agent ended, for plugins' afterAgent; stays undefined if the consumer stopped taking events.
    let outcome: AgentOutcome | undefined;
    let failure: unknown;
    try {
      // A resumed agent already passed its before-callbacks when it first started.
      if (ctx.resumeFrom === undefined && (this.beforeAgentCallback || ctx.shared.plugins.has('beforeAgent'))) {
        const before = await this.callBeforeAgent(ctx);
        if (before) {
          await sink(before.event);
          if (before.skip) {
            outcome = 'completed';
            return;
          }
        }
      }
      await this.runImplInto(ctx, agentSink);
      // A paused agent has not finished: its after-callbacks run when it does, after resume.
      if (paused) {
        outcome = 'interrupted';
        return;
      }
      outcome = 'completed';
      // Most agents have no after-callbacks: no promise for them.
      if (this.afterAgentCallback || ctx.shared.plugins.has('afterAgent')) {
        const after = await this.callAfterAgent(ctx);
        if (after) await sink(after);
      }
    } catch (error) {
      // Stopped from above (like a generator's return()): not this agent's failure.
      if (isEventsStopped(error)) throw error;
      recordFailingAgent(error, ctx.path);
      outcome = ctx.abortSignal.aborted || error instanceof RunCancelledError ? 'cancelled' : 'failed';
      failure = error;
      throw error;
    } finally {
      // Completed agents told plugins in callAfterAgent; the other endings are reported here.
      if (outcome !== 'completed' && ctx.shared.plugins.has('afterAgent')) {
        await this.reportEnd(ctx, outcome ?? 'cancelled', failure);
      }
    }
  }

  /** The agent's own behaviour. Yield events made with `createEvent`. */
  protected abstract runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined>;

  /**
   * The agent's own behaviour, push-based: built-in agents override it to hand events to `sink`
   * directly. The default runs {@link runAsyncImpl}.
   */
  protected runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    return drainInto(this.runAsyncImpl(ctx), sink);
  }

  /** Makes an event authored by this agent in `ctx`. */
  protected createEvent(ctx: InvocationContext, fields: EventInit = {}): Event {
    const event = createEvent(fields);
    this.stamp(event, ctx);
    return event;
  }

  /** Hook for agents that store callback-supplied answers (LlmAgent's outputKey). */
  protected onCallbackAnswer(event: Event, _ctx: InvocationContext): void {
    event.output = contentText(event.content);
  }

  private stamp(event: Event, ctx: InvocationContext): void {
    if (!event.invocationId) event.invocationId = ctx.invocationId;
    if (!event.author) event.author = this.name;
    if (!event.branch) event.branch = ctx.branch;
    if (!event.path) event.path = ctx.path;
  }

  private async callBeforeAgent(ctx: InvocationContext): Promise<{ event: Event; skip: boolean } | undefined> {
    const plugins = ctx.shared.plugins;
    if (!this.beforeAgentCallback && !plugins.has('beforeAgent')) return undefined;
    const cb = new CallbackContext(ctx);
    const content =
      (await plugins.run('beforeAgent', { agent: this, context: cb })) ??
      (await firstResult(this.beforeAgentCallback, cb));
    if (!content && !cb.hasEffects()) return undefined;
    const event = this.createEvent(ctx, content ? { content: { role: 'model', parts: content.parts } } : {});
    cb.applyTo(event.actions);
    if (content) this.onCallbackAnswer(event, ctx);
    return { event, skip: content !== undefined };
  }

  private async callAfterAgent(ctx: InvocationContext): Promise<Event | undefined> {
    const plugins = ctx.shared.plugins;
    if (!this.afterAgentCallback && !plugins.has('afterAgent')) return undefined;
    const cb = new CallbackContext(ctx);
    const content =
      (await plugins.run('afterAgent', { agent: this, context: cb, outcome: 'completed' })) ??
      (await firstResult(this.afterAgentCallback, cb));
    if (!content && !cb.hasEffects()) return undefined;
    const event = this.createEvent(ctx, content ? { content: { role: 'model', parts: content.parts } } : {});
    cb.applyTo(event.actions);
    if (content) this.onCallbackAnswer(event, ctx);
    return event;
  }

  /** Tells plugins an agent ended without completing; what they return is ignored (nothing can follow). */
  private async reportEnd(
    ctx: InvocationContext,
    outcome: Exclude<AgentOutcome, 'completed'>,
    error: unknown,
  ): Promise<void> {
    const params = {
      agent: this,
      context: new CallbackContext(ctx),
      outcome,
      ...(error === undefined ? {} : { error }),
    };
    for (const plugin of ctx.shared.plugins.plugins) {
      try {
        await plugin.afterAgent?.(params);
      } catch {
        // The agent's own ending (its error, the pause or the cancellation) is what the run reports.
      }
    }
  }
}

const AGENT_BRAND = Symbol.for('troupe.agent');
Object.defineProperty(BaseAgent.prototype, AGENT_BRAND, { value: true });

const failingAgents = new WeakMap<object, string>();

/** Remembers the deepest agent an error passed through, so the runner can name it. */
function recordFailingAgent(error: unknown, path: string): void {
  if (typeof error === 'object' && error !== null && !failingAgents.has(error)) failingAgents.set(error, path);
}

/** The path of the agent where an error was first seen, if any. */
export function failingAgentPath(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? failingAgents.get(error) : undefined;
}

function assertUniqueNames(parent: BaseAgent, children: readonly BaseAgent[]): void {
  const seen = new Map<string, BaseAgent>([[parent.name, parent]]);
  const visit = (agent: BaseAgent): void => {
    const other = seen.get(agent.name);
    if (other && other !== agent) {
      throw new AgentTreeError(
        `Agent name '${agent.name}' is used twice in the tree of '${parent.name}'. Names must be unique in one tree (transfers and history refer to agents by name); rename one of them.`,
      );
    }
    seen.set(agent.name, agent);
    for (const child of agent.subAgents) visit(child);
  };
  for (const child of children) visit(child);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
