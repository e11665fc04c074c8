import type { Event } from '../events/event.js';
import { getFunctionCalls } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import type { BaseAgent } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { LlmAgent, type LlmAgentOptions } from '../agents/llm-agent.js';
import type { BeforeModelCallback } from '../agents/llm/model-call.js';
import type { BeforeToolCallback } from '../agents/llm/tool-execution.js';
import type { OneOrMany } from '../runner/plugin-manager.js';
import { AgentTool } from '../tools/agent-tool.js';
import { checkUniqueNames } from './pattern-options.js';
import type { AgentKind } from '../agents/agent-outline.js';

/** Options of {@link SupervisorAgent}. */
export interface SupervisorAgentOptions extends Omit<LlmAgentOptions, 'subAgents'> {
  /** The workers the supervisor delegates to, each by its name, with its `description` shown to the model. At least one. */
  subAgents: readonly BaseAgent[];
  /**
   * Delegations the supervisor may make in one invocation. When they are used up, the workers are
   * taken off the model's tools and it is told to answer with what it has; a delegation asked for
   * anyway gets an error result instead of running. The final event records `stopReason: 'maxDelegations'`.
   * @default 10
   */
  maxDelegations?: number;
}

/** Why a supervisor stopped, recorded as `agentState.stopReason` on its final event. */
export type SupervisorStopReason = 'answered' | 'maxDelegations';

/** The supervisor's record on its final event: why it stopped and how many delegations it made. */
export interface SupervisorProgress {
  stopReason: SupervisorStopReason;
  delegations: number;
}

const LIMIT_NOTE =
  'You have used all your delegations for this request. Do not delegate again: answer the user now with what the workers have reported.';

/**
 * A coordinator model that delegates to its workers (`subAgents`) one request at a time, as Eino's
 * supervisor does: each delegation is a call of the worker's tool (`request` argument); the worker
 * runs in the same session and invocation on its own branch, its events stream and are stored, and
 * when it finishes its output comes back to the supervisor as the tool's result. The supervisor then
 * delegates again or answers. The delegation history is the supervisor's function calls and
 * responses in the event stream.
 *
 * It is an {@link LlmAgent} (the workers are {@link AgentTool}s, not transfer targets), so it nests,
 * streams, is cancelled, and resumes after a worker pauses for a human (also in a new process)
 * exactly like one. It stops on its final answer or after `maxDelegations`; its final event's
 * `actions.agentState` is a {@link SupervisorProgress}.
 *
 * @example
 * const supervisor = new SupervisorAgent({
 *   name: 'ResearchLead',
 *   model: 'gemini-2.5-flash',
 *   instruction: 'Plan the research, delegate searching and summarising, then answer.',
 *   subAgents: [searcher, summarizer],
 * });
 */
export class SupervisorAgent extends LlmAgent {
  /** The workers, in the order given. They are not part of the agent tree (no transfers to them). */
  readonly workers: readonly BaseAgent[];
  readonly maxDelegations: number;
  private readonly workerNames: ReadonlySet<string>;

  constructor(options: SupervisorAgentOptions) {
    const name = options.name;
    const workers = options.subAgents;
    if (!Array.isArray(workers) || workers.length === 0) {
      throw new ConfigurationError(
        `SupervisorAgent '${name}' has no subAgents; give it at least one worker agent to delegate to.`,
      );
    }
    checkUniqueNames('SupervisorAgent', name, 'subAgents', workers);
    const max = options.maxDelegations ?? 10;
    if (!Number.isInteger(max) || max < 1) {
      throw new ConfigurationError(
        `SupervisorAgent '${name}' has maxDelegations ${JSON.stringify(max)}; use a whole number of at least 1 (default 10).`,
      );
    }
    const names = new Set(workers.map((w) => w.name));
    const limits = { agent: undefined as SupervisorAgent | undefined };
    const refuseOverLimit: BeforeToolCallback = ({ tool, context }) => {
      const self = limits.agent;
      if (!self || !names.has(tool.name)) return undefined;
      const calls = self.delegationCallIds(context.invocationContext);
      const index = calls.indexOf(context.functionCallId);
      if (index >= self.maxDelegations) {
        return {
          error: `Delegation to '${tool.name}' refused: the limit of ${self.maxDelegations} delegations (maxDelegations) is reached. Answer with what you have.`,
        };
      }
      return undefined;
    };
    const withholdWorkers: BeforeModelCallback = ({ context, request }) => {
      const self = limits.agent;
      if (!self || self.delegationCallIds(context.invocationContext).length < self.maxDelegations) return undefined;
      if (request.config.tools) request.config.tools = request.config.tools.filter((t) => !names.has(t.name));
      request.config.systemInstruction = request.config.systemInstruction
        ? `${request.config.systemInstruction}\n\n${LIMIT_NOTE}`
        : LIMIT_NOTE;
      return undefined;
    };
    const { subAgents: _workers, maxDelegations: _max, ...llmOptions } = options;
    super({
      ...llmOptions,
      tools: [...(options.tools ?? []), ...workers.map((agent) => new AgentTool({ agent }))],
      beforeToolCallback: prepend(refuseOverLimit, options.beforeToolCallback),
      beforeModelCallback: prepend(withholdWorkers, options.beforeModelCallback),
    });
    limits.agent = this;
    this.workers = Object.freeze([...workers]);
    this.maxDelegations = max;
    this.workerNames = names;
  }

  override get kind(): AgentKind {
    return 'supervisor';
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    for await (const event of super.runAsyncImpl(ctx)) {
      if (
        event.output !== undefined &&
        !event.partial &&
        event.author === this.name &&
        (event.branch ?? '') === (ctx.branch ?? '')
      ) {
        const delegations = this.delegationCallIds(ctx).length;
        const record: SupervisorProgress = {
          stopReason: delegations >= this.maxDelegations ? 'maxDelegations' : 'answered',
          delegations,
        };
        event.actions.agentState = { ...record };
      }
      yield event;
    }
  }

  /** The ids of this supervisor's delegation calls in the current invocation, in order. */
  private delegationCallIds(ctx: InvocationContext): string[] {
    const ids: string[] = [];
    for (const event of ctx.session.events) {
      if (event.invocationId !== ctx.invocationId || event.author !== this.name || event.partial) continue;
      if ((event.branch ?? '') !== (ctx.branch ?? '')) continue;
      for (const call of getFunctionCalls(event)) if (this.workerNames.has(call.name)) ids.push(call.id ?? '');
    }
    return ids;
  }
}

function prepend<T>(first: T, rest: OneOrMany<T> | undefined): T[] {
  if (rest === undefined) return [first];
  return [first, ...(Array.isArray(rest) ? (rest as T[]) : [rest as T])];
}
