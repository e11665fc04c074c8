import type { Event } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import { endsRun } from '../runner/ends-run.js';
import { keyed, routeWithFailover, type RoutingErrorContext } from '../utils/routing.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { isOwnEvent } from './replay.js';
import type { AgentKind } from './agent-outline.js';

/** Picks the key of the agent that handles this invocation; sync or async. */
export type AgentRouter = (
  agents: Readonly<Record<string, BaseAgent>>,
  ctx: InvocationContext,
  errorContext?: RoutingErrorContext,
) => Promise<string | undefined> | string | undefined;

/** Options of {@link RoutedAgent}. */
export interface RoutedAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /** The agents to choose from: a record with explicit keys, or an array keyed by agent name. */
  agents: Readonly<Record<string, BaseAgent>> | readonly BaseAgent[];
  router: AgentRouter;
}

/**
 * Runs one of several agents per invocation, chosen by a router function (seed 003): for fallback
 * on errors, A/B selection, a planning mode, or routing by input complexity. If the chosen agent
 * fails before producing any event, the router is asked again with the failed keys. The choice is
 * recorded as `actions.route`; the output is the chosen agent's output.
 *
 * @example
 * const routed = new RoutedAgent({
 *   name: 'Support',
 *   agents: { primary, fallback },
 *   router: (_agents, _ctx, error) => (!error ? 'primary' : error.failedKeys.has('fallback') ? undefined : 'fallback'),
 * });
 */
export class RoutedAgent extends BaseAgent {
  readonly agents: Readonly<Record<string, BaseAgent>>;
  readonly router: AgentRouter;

  constructor(options: RoutedAgentOptions) {
    const agents = keyed(`RoutedAgent '${options?.name}'`, options?.agents ?? {}, (agent) => agent.name);
    super({ ...options, subAgents: [...new Set(Object.values(agents))] });
    if (Object.keys(agents).length === 0) {
      throw new ConfigurationError(`RoutedAgent '${options.name}' needs at least one agent in 'agents'.`);
    }
    if (typeof options.router !== 'function') {
      throw new ConfigurationError(
        `RoutedAgent '${options.name}' needs a router function (agents, ctx, errorContext?) => key; got ${typeof options.router}.`,
      );
    }
    this.agents = Object.freeze(agents);
    this.router = options.router;
  }

  override get kind(): AgentKind {
    return 'routed';
  }

  override get resumable(): boolean {
    return Object.values(this.agents).every((agent) => agent.resumable);
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    if (ctx.resumeFrom !== undefined) {
      // Resume with the agent that was chosen, without asking the router again.
      const chosen = lastRoute(ctx, this.name);
      if (chosen && Object.hasOwn(this.agents, chosen.key)) {
        yield* this.agents[chosen.key]!.runAsync(ctx.with({ resumeFrom: chosen.index + 1 }));
        return;
      }
    }
    const fresh = ctx.fresh();
    yield* routeWithFailover<BaseAgent, Event>({
      owner: `RoutedAgent '${this.name}'`,
      candidates: this.agents,
      choose: (errorContext) => this.router(this.agents, fresh, errorContext),
      isFatal: (error) => endsRun(error, ctx.abortSignal),
      run: (key, agent, failed) => this.runChosen(fresh, key, agent, failed),
    });
  }

  private async *runChosen(
    ctx: InvocationContext,
    key: string,
    agent: BaseAgent,
    failed: ReadonlySet<string>,
  ): AsyncGenerator<Event, void, undefined> {
    const reason = failed.size > 0 ? `fallback after ${[...failed].join(', ')} failed` : undefined;
    const routeEvent = this.createEvent(ctx, { actions: { route: reason ? { key, reason } : { key } } });
    let started = false;
    for await (const event of agent.runAsync(ctx)) {
      // The route is recorded with the chosen agent's first event, so a failure before any event can still fall back.
      if (!started) {
        started = true;
        yield routeEvent;
      }
      yield event;
    }
    if (!started) yield routeEvent;
  }
}

function lastRoute(ctx: InvocationContext, name: string): { key: string; index: number } | undefined {
  const events = ctx.session.events;
  for (let i = events.length - 1; i >= (ctx.resumeFrom ?? events.length); i--) {
    const e = events[i]!;
    if (e.actions.route && isOwnEvent(e, ctx, name)) return { key: e.actions.route.key, index: i };
  }
  return undefined;
}
