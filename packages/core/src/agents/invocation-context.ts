import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { ContextCacheOptions } from '../models/context-cache.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { Content } from '../events/content.js';
import type { Event } from '../events/event.js';
import type { BaseLlm } from '../models/base-llm.js';
import type { ResolvedRunConfig } from '../runner/run-config.js';
import type { PluginManager } from '../runner/plugin-manager.js';
import type { UsageTotals } from '../runner/run-result.js';
import type { Session, SessionService } from '../sessions/session.js';
import type { BaseAgent } from './base-agent.js';
import type { Redactor } from '../utils/redact.js';
import { lastCheckpoint } from './replay.js';
import { ConfigurationError } from '../errors.js';
import { customEventOf } from '../events/custom-event.js';
import type { EventSink } from './event-sink.js';
import type { SourceCache } from './llm/history.js';

/** Everything one invocation shares across the agent tree. Internal. */
export interface InvocationShared {
  readonly invocationId: string;
  readonly runConfig: ResolvedRunConfig;
  readonly plugins: PluginManager;
  readonly rootAgent: BaseAgent;
  readonly defaultModel: BaseLlm | string | undefined;
  /** Names of the runner tree's ParallelAgents, whose branches the agents after them see (fan-in). */
  readonly fanIn: ReadonlySet<string>;
  llmCalls: number;
  transfers: number;
  /** Token totals of the run so far (checked against runConfig.maxTokens). */
  readonly usage: UsageTotals;
  endInvocation: boolean;
  /** Answers given to interrupts of this invocation (by interrupt id), for tools that asked. */
  readonly answers: ReadonlyMap<string, unknown>;
  /** Masks secrets in error text the run stores (the runner's `secrets` and the default rules). */
  readonly redact: Redactor;
  /** The runner's artifact store, when it has one. */
  readonly artifactService: ArtifactService | undefined;
  /** The runner's memory, when it has one. */
  readonly memoryService: MemoryService | undefined;
  /** The runner's `contextCache` (checked), which an agent's own option overrides. */
  readonly contextCache?: Required<ContextCacheOptions> | false | undefined;
}

/**
 * An isolated conversation inside the session: an AgentTool call or a TeamAgent skill.
 * Agents inside see only its input and the events it produced, never the caller's history.
 */
export interface HistoryScope {
  /** The synthetic user turn built from the call's input, followed by the events of the call. */
  readonly events: Event[];
  /** Values `{key}` in an instruction resolves from before state (a TeamAgent skill's input). */
  readonly templateInput?: Record<string, unknown> | undefined;
  /**
   * Set for an agent a graph workflow node runs: the outputs of the workflow's nodes so far (by
   * node name), which `<Class.field from node>` in its instruction reads (ADK).
   */
  readonly nodeOutputs?: () => Record<string, unknown>;
  /** Fan-in agent names of the called agent's own tree (see `fanInAgentsOf`). */
  readonly fanIn: ReadonlySet<string>;
  /** What history building cached for `events` (history.ts), made on the first model call. */
  historyCache?: SourceCache;
}

/** Tracks escalation for the nearest enclosing LoopAgent. */
export interface LoopScope {
  escalated: boolean;
}

interface ContextFields {
  readonly shared: InvocationShared;
  readonly agent: BaseAgent;
  readonly branch: string;
  readonly path: string;
  readonly session: Session;
  readonly sessionService: SessionService;
  readonly userContent: Content | undefined;
  readonly input: Record<string, unknown>;
  readonly abortSignal: AbortSignal;
  readonly historyScope: HistoryScope | undefined;
  readonly loopScope: LoopScope | undefined;
  readonly resumeFrom: number | undefined;
  readonly workflowNode?: WorkflowNodeSite | undefined;
}

/** Where a workflow that is itself a node of another workflow runs: its input and node path. Internal. */
export interface WorkflowNodeSite {
  /** The agent the node runs (its own children must not take the site for theirs). */
  readonly agent: BaseAgent;
  readonly input: unknown;
  readonly path: string;
}

/** Where an agent runs: its session, branch, input and the invocation it belongs to. */
export class InvocationContext {
  readonly agent: BaseAgent;
  /** History-isolation path (see `Event.branch`). */
  readonly branch: string;
  /** Agent names from the root joined by `/`. */
  readonly path: string;
  /** The session; its `state` is current, with every delta appended so far. */
  readonly session: Session;
  readonly sessionService: SessionService;
  /** The user message that started the invocation. */
  readonly userContent: Content | undefined;
  /** The structured input: the run's `input`, what a TeamAgent or AgentTool passed, or `{ request }`. */
  readonly input: Record<string, unknown>;
  readonly abortSignal: AbortSignal;
  /** @internal */
  readonly shared: InvocationShared;
  /** @internal */
  readonly historyScope: HistoryScope | undefined;
  /** @internal */
  readonly loopScope: LoopScope | undefined;
  /**
   * Set when this agent is being resumed: the index in `session.events` from which its earlier
   * progress in this invocation is read. Undefined for a fresh run. Internal.
   * @internal
   */
  readonly resumeFrom: number | undefined;
  /**
   * Set for the agent a graph workflow node runs: the node's input and path (a nested workflow
   * reads them). Internal.
   * @internal
   */
  readonly workflowNode: WorkflowNodeSite | undefined;
  /**
   * Where `emit` hands events: the sink of the agent running in this context, which stamps them as
   * its own. Set when the agent starts; copies made with `with` keep it. Internal.
   * @internal
   */
  emitTo: EventSink | undefined;

  constructor(fields: ContextFields) {
    this.shared = fields.shared;
    this.agent = fields.agent;
    this.branch = fields.branch;
    this.path = fields.path;
    this.session = fields.session;
    this.sessionService = fields.sessionService;
    this.userContent = fields.userContent;
    this.input = fields.input;
    this.abortSignal = fields.abortSignal;
    this.historyScope = fields.historyScope;
    this.loopScope = fields.loopScope;
    this.resumeFrom = fields.resumeFrom;
    this.workflowNode = fields.workflowNode;
    this.emitTo = undefined;
  }

  /**
   * Stores a custom event authored by this agent (`event.customEvent = { name, data }`), in order
   * with its other events, and streams it to every client (SSE, AG-UI `CUSTOM`, AI SDK `data-<name>`,
   * MCP progress); a model never sees it. Resolves once it is stored. `data` must be JSON-serialisable.
   *
   * @example
   * await ctx.emit('progress', { done: 3, total: 10 });
   */
  async emit(name: string, data?: unknown): Promise<void> {
    const sink = this.emitTo;
    const where = `ctx.emit('${String(name)}') in agent '${this.agent.name}'`;
    if (!sink) {
      throw new ConfigurationError(
        `${where}: the agent is not running in this context. Call emit while the agent runs (from runAsyncImpl, a callback, a tool or a node).`,
      );
    }
    await sink(customEventOf(name, data, where));
  }

  get invocationId(): string {
    return this.shared.invocationId;
  }

  get runConfig(): ResolvedRunConfig {
    return this.shared.runConfig;
  }

  /** Set to true to end the whole invocation after the current event. */
  get endInvocation(): boolean {
    return this.shared.endInvocation;
  }

  set endInvocation(value: boolean) {
    this.shared.endInvocation = value;
  }

  /** A copy with some fields changed. */
  with(changes: Partial<Omit<ContextFields, 'shared'>>): InvocationContext {
    const copy = new InvocationContext({
      shared: this.shared,
      agent: changes.agent ?? this.agent,
      branch: changes.branch ?? this.branch,
      path: changes.path ?? this.path,
      session: changes.session ?? this.session,
      sessionService: changes.sessionService ?? this.sessionService,
      userContent: 'userContent' in changes ? changes.userContent : this.userContent,
      input: changes.input ?? this.input,
      abortSignal: changes.abortSignal ?? this.abortSignal,
      historyScope: 'historyScope' in changes ? changes.historyScope : this.historyScope,
      loopScope: 'loopScope' in changes ? changes.loopScope : this.loopScope,
      resumeFrom: 'resumeFrom' in changes ? changes.resumeFrom : this.resumeFrom,
      // Given afresh where it applies (see WorkflowNodeSite.agent); forAgent keeps it.
      workflowNode: changes.workflowNode,
    });
    copy.emitTo = this.emitTo;
    return copy;
  }

  /** The context an agent runs in when called from this one. */
  forAgent(agent: BaseAgent): InvocationContext {
    return this.with({
      agent,
      path: this.path ? `${this.path}/${agent.name}` : agent.name,
      workflowNode: this.workflowNode,
    });
  }

  /** The branch a child of `parent` runs on when isolated (parallel branch, tool call, team skill). */
  childBranch(parentName: string, childName: string): string {
    return this.branch ? `${this.branch}.${parentName}.${childName}` : `${parentName}.${childName}`;
  }

  /** This context for running a child from scratch (not resuming it). */
  fresh(): InvocationContext {
    return this.resumeFrom === undefined ? this : this.with({ resumeFrom: undefined });
  }

  /**
   * True while this agent is being resumed (after a pause, a crash or a drain): it ran before in
   * this invocation, and its earlier events and progress records are in the session.
   */
  get isResuming(): boolean {
    return this.resumeFrom !== undefined;
  }

  /**
   * The last progress record (`actions.agentState`) this agent stored in this invocation, for a
   * resuming agent to continue after it; undefined in a fresh run or before the first record.
   * Records are the agent's own JSON objects (see docs/agents.md, "Writing your own workflow agent").
   */
  lastProgress<T extends Record<string, unknown> = Record<string, unknown>>(): T | undefined {
    return lastCheckpoint(this, this.agent.name)?.state as T | undefined;
  }

  /** Throws the abort reason when the run was cancelled. */
  throwIfAborted(): void {
    if (this.abortSignal.aborted) throw this.abortSignal.reason;
  }
}
