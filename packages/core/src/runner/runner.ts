import type { BaseAgent } from '../agents/base-agent.js';
import { failingAgentPath } from '../agents/base-agent.js';
import { InvocationContext, type InvocationShared } from '../agents/invocation-context.js';
import { collectFanInAgents } from '../agents/llm/branch-visibility.js';
import { findAgentToRun } from '../agents/llm/transfer.js';
import { inputFromContent } from '../agents/structured-input.js';
import { userContent as toUserContent, type Content } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { ConfigurationError, RunCancelledError, RunLimitError, SessionNotFoundError, TroupeError, OutputValidationError } from '../errors.js';
import type { BaseLlm } from '../models/base-llm.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { Session, SessionService } from '../sessions/session.js';
import { assertValidDelta, TEMP_PREFIX } from '../sessions/state-keys.js';
import { linkedAbortController } from '../utils/abort.js';
import { newId } from '../utils/ids.js';
import { validate } from '../utils/schema.js';
import type { BasePlugin } from './base-plugin.js';
import { PluginManager } from './plugin-manager.js';
import { resolveRunConfig, type RunConfig } from './run-config.js';
import { addUsage, emptyUsage, type RunResult, type RunStatus } from './run-result.js';
import { acquireSession } from './session-lock.js';

/** Options of {@link Runner}. */
export interface RunnerOptions {
  appName: string;
  /** The root of the agent tree. */
  agent: BaseAgent;
  sessionService: SessionService;
  plugins?: readonly BasePlugin[];
  /** Model for LlmAgents that have none of their own or inherited (the CLI's `--model`). */
  defaultModel?: BaseLlm | string;
  /** Create the session on first use instead of failing with `SessionNotFoundError`. @default false */
  autoCreateSession?: boolean;
}

/** What one user turn is made of. */
export interface RunParams {
  userId: string;
  sessionId: string;
  /** The user's message. Optional when `input` is given. */
  newMessage?: Content | string;
  /** A structured input for the agent (`ctx.input`). */
  input?: Record<string, unknown>;
  /** State written together with the user's message. */
  stateDelta?: Record<string, unknown>;
  runConfig?: RunConfig;
  abortSignal?: AbortSignal;
}

/**
 * Runs an agent tree against sessions: appends the user's message, runs the agent that should
 * answer, appends every event before yielding it, and enforces limits, cancellation and the
 * one-invocation-per-session rule.
 *
 * @example
 * const runner = new Runner({ appName: 'travel', agent: coordinator, sessionService: new InMemorySessionService() });
 * const session = await runner.sessionService.createSession({ appName: 'travel', userId: 'u1' });
 * const result = await runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'Book a flight to Paris' });
 */
export class Runner {
  readonly appName: string;
  readonly agent: BaseAgent;
  readonly sessionService: SessionService;
  readonly plugins: readonly BasePlugin[];
  private readonly pluginManager: PluginManager;
  private readonly defaultModel: BaseLlm | string | undefined;
  private readonly autoCreateSession: boolean;
  private readonly fanInAgents: Set<string>;

  constructor(options: RunnerOptions) {
    if (typeof options?.appName !== 'string' || options.appName.length === 0) {
      throw new ConfigurationError(`Runner needs a non-empty appName; got ${JSON.stringify(options?.appName)}.`);
    }
    if (!options.agent || typeof options.agent.runAsync !== 'function') {
      throw new ConfigurationError(`Runner for app '${options.appName}' needs an agent (the root of the tree); got ${String(options.agent)}.`);
    }
    if (!options.sessionService) {
      throw new ConfigurationError(`Runner for app '${options.appName}' needs a sessionService, e.g. new InMemorySessionService().`);
    }
    this.appName = options.appName;
    this.agent = options.agent;
    this.sessionService = options.sessionService;
    this.plugins = Object.freeze([...(options.plugins ?? [])]);
    this.pluginManager = new PluginManager(this.plugins);
    this.defaultModel = options.defaultModel;
    this.autoCreateSession = options.autoCreateSession ?? false;
    this.fanInAgents = collectFanInAgents(options.agent, new Set());
  }

  /**
   * Runs one user turn and yields its events as they happen. A failure inside the tree yields a
   * final event with `errorCode`/`errorMessage` (stored too) and then throws.
   */
  async *runAsync(params: RunParams): AsyncGenerator<Event, void, undefined> {
    yield* this.invoke(params, { result: undefined });
  }

  /** Runs one user turn to the end. Resolves with the outcome; rejects only for misuse (unknown session, bad arguments). */
  async run(params: RunParams): Promise<RunResult> {
    const sink: { result: RunResult | undefined } = { result: undefined };
    try {
      for await (const _ of this.invoke(params, sink)) {
        // The events are collected into the result by invoke.
      }
    } catch (error) {
      if (!sink.result) throw error;
    }
    return sink.result!;
  }

  private async *invoke(params: RunParams, sink: { result: RunResult | undefined }): AsyncGenerator<Event, void, undefined> {
    const { userId, sessionId } = params ?? ({} as RunParams);
    if (typeof userId !== 'string' || !userId) throw new ConfigurationError(`run needs a userId string; got ${JSON.stringify(userId)}.`);
    if (typeof sessionId !== 'string' || !sessionId) throw new ConfigurationError(`run needs a sessionId string; got ${JSON.stringify(sessionId)}. Create one with runner.sessionService.createSession.`);
    if (params.newMessage === undefined && params.input === undefined) {
      throw new ConfigurationError(`run needs a newMessage (string or Content) or an input object for session '${sessionId}'.`);
    }
    if (params.stateDelta) assertValidDelta(params.stateDelta);
    const runConfig = resolveRunConfig(params.runConfig);
    const session = await this.loadSession(userId, sessionId);
    const release = acquireSession(this.sessionService, this.appName, userId, sessionId);

    const controller = linkedAbortController(params.abortSignal);
    const timer = runConfig.timeoutMs === undefined ? undefined : setTimeout(() => {
      controller.abort(new RunLimitError('timeout', `The run took longer than runConfig.timeoutMs (${runConfig.timeoutMs} ms) and was stopped. Raise the limit or make the agents faster.`));
    }, runConfig.timeoutMs);
    const shared: InvocationShared = {
      invocationId: `e-${newId()}`,
      runConfig,
      plugins: this.pluginManager,
      rootAgent: this.agent,
      defaultModel: this.defaultModel,
      parallelAgentNames: new Set(this.fanInAgents),
      llmCalls: 0,
      transfers: 0,
      tokens: 0,
      endInvocation: false,
    };
    const events: Event[] = [];
    const usage = emptyUsage();
    let output: unknown;
    let status: RunStatus = 'completed';
    let failure: Error | undefined;
    let ctx: InvocationContext | undefined;
    let finished = false;
    try {
      const agent = runConfig.restartFromRoot ? this.agent : findAgentToRun(this.agent, session.events);
      const input = await this.structuredInput(agent, params);
      const content = params.newMessage !== undefined ? toUserContent(params.newMessage) : agent.inputMessage(input);
      ctx = new InvocationContext({
        shared,
        agent,
        branch: '',
        path: treePath(agent.parentAgent),
        session,
        sessionService: this.sessionService,
        userContent: content,
        input,
        abortSignal: controller.signal,
        historyScope: undefined,
        loopScope: undefined,
      });
      const userEvent = createEvent({ invocationId: shared.invocationId, author: 'user', content, actions: { stateDelta: { ...params.stateDelta } } });
      await this.sessionService.appendEvent({ session, event: userEvent });
      await this.pluginManager.run('beforeRun', { context: ctx });

      for await (let event of agent.runAsync(ctx)) {
        if (this.pluginManager.has('onEvent')) event = (await this.pluginManager.run('onEvent', { context: ctx, event })) ?? event;
        if (event.partial) {
          yield event;
          continue;
        }
        const stored = await this.sessionService.appendEvent({ session, event });
        events.push(stored);
        if (stored.usage) {
          addUsage(usage, stored.author, stored.usage);
          shared.tokens += stored.usage.inputTokens + stored.usage.outputTokens;
        }
        if (stored.output !== undefined) output = stored.output;
        yield stored;
        if (shared.endInvocation) break;
      }
      finished = true;
    } catch (caught) {
      const error = this.classify(caught, params.abortSignal);
      status = error instanceof RunLimitError ? 'limit' : error instanceof RunCancelledError ? 'cancelled' : 'failed';
      failure = error;
      const errorEvent = createEvent({
        invocationId: shared.invocationId,
        author: authorOf(failingAgentPath(caught)) ?? this.agent.name,
        path: failingAgentPath(caught) ?? this.agent.name,
        errorCode: error instanceof TroupeError ? error.code : 'ERROR',
        errorMessage: error.message,
      });
      try {
        events.push(await this.sessionService.appendEvent({ session, event: errorEvent }));
      } catch {
        // The store refused the error record (e.g. it went away); the run's error below still reports the failure.
      }
      yield errorEvent;
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort(new RunCancelledError('The run ended.'));
      controller.dispose();
      for (const key of Object.keys(session.state)) if (key.startsWith(TEMP_PREFIX)) delete session.state[key];
      release();
      // A consumer that stopped iterating early abandoned the run.
      if (!finished && !failure) status = 'cancelled';
      const result: RunResult = { status, events, output, state: { ...session.state }, usage, interrupts: [] };
      if (failure) result.error = failure;
      if (failure instanceof RunLimitError) result.stopReason = failure.limit;
      sink.result = result;
      if (ctx) await this.pluginManager.run('afterRun', { context: ctx, result });
    }
  }

  private async loadSession(userId: string, sessionId: string): Promise<Session> {
    const session = await this.sessionService.getSession({ appName: this.appName, userId, sessionId });
    if (session) return session;
    if (this.autoCreateSession) return this.sessionService.createSession({ appName: this.appName, userId, sessionId });
    throw new SessionNotFoundError(
      `Session '${sessionId}' not found for app '${this.appName}' and user '${userId}'. Create it first with runner.sessionService.createSession({ appName: '${this.appName}', userId: '${userId}' }), or set autoCreateSession.`,
    );
  }

  private async structuredInput(agent: BaseAgent, params: RunParams): Promise<Record<string, unknown>> {
    if (params.input === undefined) return inputFromContent(toUserContent(params.newMessage!));
    if (typeof params.input !== 'object' || params.input === null || Array.isArray(params.input)) {
      throw new ConfigurationError(`run's input must be a plain object; got ${JSON.stringify(params.input)}.`);
    }
    if (!agent.inputSchema) return params.input;
    const checked = await validate(agent.inputSchema, params.input);
    if (!checked.ok) throw new OutputValidationError(`The input for agent '${agent.name}' does not match its inputSchema: ${checked.message}.`);
    return checked.value as Record<string, unknown>;
  }

  private classify(error: unknown, userSignal: AbortSignal | undefined): Error {
    if (error instanceof RunLimitError || error instanceof RunCancelledError) return error;
    if (userSignal?.aborted) return new RunCancelledError(undefined, { cause: error });
    if (error instanceof Error) return error;
    return new TroupeError('ERROR', `The run failed with a non-Error value: ${String(error)}`, { cause: error });
  }
}

/** A runner with an in-memory session store, for tests and quick experiments. */
export class InMemoryRunner extends Runner {
  constructor(options: { agent: BaseAgent; appName?: string; plugins?: readonly BasePlugin[]; defaultModel?: BaseLlm | string; autoCreateSession?: boolean }) {
    super({ ...options, appName: options.appName ?? 'InMemoryRunner', sessionService: new InMemorySessionService() });
  }
}

function treePath(agent: BaseAgent | undefined): string {
  const names: string[] = [];
  for (let a = agent; a; a = a.parentAgent) names.push(a.name);
  return names.reverse().join('/');
}

function authorOf(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}
