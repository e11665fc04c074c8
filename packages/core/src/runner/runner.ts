import type { BaseAgent } from '../agents/base-agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { AgentTool } from '../tools/agent-tool.js';
import type { BaseToolset } from '../tools/base-toolset.js';
import { findAgentToRun } from '../agents/llm/transfer.js';
import { inputFromContent, messageInput } from '../agents/structured-input.js';
import { asAgentState, invocationStart, type InvocationStart } from '../agents/progress.js';
import { userContent as toUserContent, type Content } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import {
  ConfigurationError,
  InputValidationError,
  InvocationExistsError,
  PendingInterruptError,
  SessionNotFoundError,
} from '../errors.js';
import { answersOf, checkResponses, openInterrupts } from '../interrupts/open-interrupts.js';
import { refuseAnsweredTwice } from '../interrupts/answered-twice.js';
import { answersInMessage } from '../interrupts/message-answers.js';
import type { BaseLlm } from '../models/base-llm.js';
import { resolveModel } from '../models/registry.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { InMemoryArtifactService } from '../artifacts/in-memory-artifact-service.js';
import type { Session, SessionKey, SessionService } from '../sessions/session.js';
import { assertValidDelta } from '../sessions/state-keys.js';
import { newId } from '../utils/ids.js';
import { checkIds, checkInvocationId, refuseForbiddenKeys } from './run-arguments.js';
import { createRedactor, secretsProblem, type Redactor } from '../utils/redact.js';
import { validate } from '../utils/schema.js';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { BasePlugin } from './base-plugin.js';
import type { InvocationSetup } from './invocation.js';
import { claimed, collect, streamInvocation } from './invocation-callers.js';

/** What differs between a new turn and a resumed one, for {@link Runner.setup}. */
type InvocationTurn = Pick<
  InvocationSetup,
  'invocationId' | 'agent' | 'userContent' | 'input' | 'opening' | 'resumeFrom' | 'answers'
>;
import { PluginManager } from './plugin-manager.js';
import { resolveRunConfig, type RunConfig } from './run-config.js';
import type { RunResult } from './run-result.js';
import { claimSession, type SessionClaim } from './session-claim.js';
import { SessionCache } from './session-cache.js';
import { checkContextCache, type ContextCache, type ContextCacheOptions } from '../models/context-cache.js';
import { checkCompaction, isCompactionRecord, type CompactionOptions } from './compaction.js';
import { refuseRewound, rewindSession, type RewindParams } from './rewind.js';
import { updateSessionState, type UpdateSessionStateParams } from './update-session-state.js';

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
  /**
   * With a store that leases sessions: how long a run's lease holds without renewal (it is renewed
   * every third of this while the run goes on). After a crash, another process can resume the
   * session once this much time has passed.
   * @default 30000
   */
  leaseTtlMs?: number;
  /**
   * Strings masked in every error the runner stores in a session (error events, tool error
   * responses), e.g. `[process.env.DB_PASSWORD!]`. Masked always, without listing them: passwords
   * in URLs, `Authorization`/`Bearer` values, API-key-shaped values and the values of environment
   * variables named `*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD` (see `createRedactor`). Each
   * needs at least 4 characters.
   * @default []
   */
  secrets?: readonly string[];
  /** Where `ctx.saveArtifact` / `loadArtifact` / `listArtifacts` keep artifacts (see docs/artifacts.md). */
  artifactService?: ArtifactService;
  /** What `loadMemoryTool`, `preloadMemoryTool` and `ctx.searchMemory` search (see docs/memory.md). */
  memoryService?: MemoryService;
  /**
   * How many sessions the runner keeps between turns, so that a turn reads only the events stored
   * since its previous turn on that session (`getSession({ afterVersion })`) and history folds only
   * those: the per-turn cost of a long session does not grow with its length. State and events
   * written elsewhere (another process or runner) are still read from the store at every turn. The
   * least recently run sessions are forgotten beyond this many; sessions of fewer than 32 events
   * are not kept (reading them whole is cheap); 0 reads every session whole at every turn. Memory:
   * the kept sessions' events.
   * @default 1000
   */
  sessionCacheSize?: number;
  /** Summarise older events every few completed invocations (see docs/long-sessions.md). */
  compaction?: CompactionOptions;
  /**
   * Prompt caching for every LlmAgent of the app (an agent's own `contextCache` wins): the
   * provider bills the repeated system prompt, tools and history at its cached price (see
   * "Prompt caching" in docs/models.md).
   * @default undefined (off)
   */
  contextCache?: ContextCache;
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
  /**
   * Stops the run: nothing new starts, the run ends with status `'cancelled'` and one stored
   * `CANCELLED` event. Abort with a `RunDrainedError` to stop without a terminal event, so that
   * another process can resume the invocation.
   */
  abortSignal?: AbortSignal;
  /**
   * The invocation's id, chosen by the caller (1–128 characters of `A-Za-z0-9._:-`), e.g. a job id,
   * so a retried job finds its invocation. A session that already holds it rejects the run with
   * `InvocationExistsError`; continue it with `resume({ invocationId })`.
   * @default a generated id
   */
  invocationId?: string;
}

/** What continuing a paused (or crashed) invocation needs. */
export interface ResumeParams {
  userId: string;
  sessionId: string;
  /** The invocation to continue. @default the session's latest invocation with open interrupts */
  invocationId?: string;
  /** Answers by interrupt id: `true`/`false`/`{ confirmed, payload? }` for confirmations, the value for input requests. */
  responses?: Record<string, unknown>;
  runConfig?: RunConfig;
  abortSignal?: AbortSignal;
}

/**
 * Runs an agent tree against sessions: appends the user's message, runs the agent that should
 * answer, appends every event before yielding it, and enforces limits, cancellation and the
 * one-invocation-per-session rule. Paused runs continue with {@link resume}.
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
  readonly artifactService: ArtifactService | undefined;
  readonly memoryService: MemoryService | undefined;
  private readonly pluginManager: PluginManager;
  private defaultModel: BaseLlm | string | undefined;
  private readonly autoCreateSession: boolean;
  private readonly leaseTtlMs: number;
  private readonly redact: Redactor;
  private readonly sessions: SessionCache;
  private readonly compaction: Readonly<CompactionOptions> | undefined;
  private readonly contextCache: Required<ContextCacheOptions> | false | undefined;

  constructor(options: RunnerOptions) {
    if (typeof options?.appName !== 'string' || options.appName.length === 0) {
      throw new ConfigurationError(`Runner needs a non-empty appName; got ${JSON.stringify(options?.appName)}.`);
    }
    if (!options.agent || typeof options.agent.runAsync !== 'function') {
      throw new ConfigurationError(
        `Runner for app '${options.appName}' needs an agent (the root of the tree); got ${String(options.agent)}.`,
      );
    }
    if (!options.sessionService) {
      throw new ConfigurationError(
        `Runner for app '${options.appName}' needs a sessionService, e.g. new InMemorySessionService().`,
      );
    }
    this.appName = options.appName;
    this.agent = options.agent;
    this.sessionService = options.sessionService;
    this.plugins = Object.freeze([...(options.plugins ?? [])]);
    this.pluginManager = new PluginManager(this.plugins);
    this.artifactService = options.artifactService;
    this.memoryService = options.memoryService;
    this.defaultModel = options.defaultModel;
    this.autoCreateSession = options.autoCreateSession ?? false;
    const ttl = options.leaseTtlMs ?? 30_000;
    if (!Number.isInteger(ttl) || ttl < 10) {
      throw new ConfigurationError(
        `Runner for app '${options.appName}' has leaseTtlMs ${JSON.stringify(options.leaseTtlMs)}; use a whole number of milliseconds of at least 10 (default 30000).`,
      );
    }
    this.leaseTtlMs = ttl;
    const problem = secretsProblem(options.secrets ?? []);
    if (problem) throw new ConfigurationError(`Runner for app '${options.appName}': ${problem}`);
    this.redact = createRedactor({ secrets: options.secrets ?? [] });
    const cacheSize = options.sessionCacheSize ?? 1000;
    if (!Number.isInteger(cacheSize) || cacheSize < 0) {
      throw new ConfigurationError(
        `Runner for app '${options.appName}' has sessionCacheSize ${JSON.stringify(options.sessionCacheSize)}; use a whole number of sessions, 0 or more (0 turns the cache off; default 1000).`,
      );
    }
    this.sessions = new SessionCache(cacheSize);
    this.compaction = checkCompaction(options.appName, options.compaction, options.agent, options.defaultModel);
    this.contextCache = checkContextCache(`Runner '${options.appName}'`, options.contextCache);
  }

  /**
   * Runs one user turn and yields its events as they happen; the generator's return value is the
   * {@link RunResult}. A failure inside the tree yields a final event with `errorCode`/`errorMessage`
   * (stored too) and then throws.
   */
  async *runAsync(params: RunParams): AsyncGenerator<Event, RunResult, undefined> {
    return yield* streamInvocation(await this.prepareRun(params));
  }

  /**
   * Checks a run and claims its session — misuse (unknown session, busy session, open interrupts,
   * bad arguments) rejects here — and returns its events, not yet started. For servers that answer
   * misuse before streaming. Iterate the result, or call its `return()` to give the session back.
   */
  async start(params: RunParams): Promise<AsyncGenerator<Event, RunResult, undefined>> {
    return claimed(await this.prepareRun(params));
  }

  /** {@link start} for {@link resumeAsync}: bad or unknown answers reject here. */
  async startResume(params: ResumeParams): Promise<AsyncGenerator<Event, RunResult, undefined>> {
    return claimed(await this.prepareResume(params));
  }

  /** Runs one user turn to the end. Resolves with the outcome; rejects only for misuse (unknown session, bad arguments). */
  async run(params: RunParams): Promise<RunResult> {
    return collect(await this.prepareRun(params));
  }

  /**
   * Continues a paused invocation with answers to its interrupts, or an invocation whose process
   * died (`invocationId`, no responses), without repeating finished steps. Yields the new events.
   */
  async *resumeAsync(params: ResumeParams): AsyncGenerator<Event, RunResult, undefined> {
    return yield* streamInvocation(await this.prepareResume(params));
  }

  /**
   * Closes what the agent tree holds open (toolsets such as MCP servers, including those of agents
   * behind AgentTools). Safe to call more than once.
   */
  async close(): Promise<void> {
    const toolsets = new Set<BaseToolset>();
    collectToolsets(this.agent, toolsets, new Set());
    const results = await Promise.allSettled([...toolsets].map((toolset) => toolset.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Takes the session back to before an invocation (ADK's `rewind`): its state (session keys) and
   * artifacts as they were, later state recomputed; the events stay, marked rewound by one stored
   * rewind event. See {@link rewindSession}.
   */
  async rewind(params: RewindParams): Promise<void> {
    const { userId, sessionId } = checkIds(params);
    await rewindSession({
      sessionService: this.sessionService,
      artifactService: this.artifactService,
      appName: this.appName,
      userId,
      sessionId,
      beforeInvocationId: params.beforeInvocationId,
      leaseTtlMs: this.leaseTtlMs,
    });
  }

  /** {@link resumeAsync} to the end. */
  async resume(params: ResumeParams): Promise<RunResult> {
    return collect(await this.prepareResume(params));
  }

  /**
   * Writes state outside a turn (ADK's `PATCH .../sessions/{id}`): one stored event by `'user'`
   * carrying `stateDelta`, under the session's claim (`SessionBusyError` while an invocation runs).
   * Resolves with the updated session. See {@link updateSessionState}.
   */
  async updateSessionState(params: UpdateSessionStateParams): Promise<Session> {
    const { userId, sessionId } = checkIds(params);
    return updateSessionState(
      this.sessionService,
      { appName: this.appName, userId, sessionId },
      params.stateDelta,
      this.leaseTtlMs,
    );
  }

  private async prepareRun(params: RunParams): Promise<InvocationSetup> {
    const { userId, sessionId } = checkIds(params);
    if (params.newMessage === undefined && params.input === undefined) {
      throw new ConfigurationError(
        `run needs a newMessage (string or Content) or an input object for session '${sessionId}'.`,
      );
    }
    if (params.invocationId !== undefined) checkInvocationId(params.invocationId);
    if (params.stateDelta) assertValidDelta(params.stateDelta);
    refuseForbiddenKeys(params.input, 'input');
    const runConfig = resolveRunConfig(params.runConfig);
    const { session, claim } = await this.claim(userId, sessionId);
    try {
      const pending = openInterrupts(session.events);
      // A message that answers a workflow's request for input (ADK's clients: a functionResponse
      // naming it, or plain text while exactly one is open) continues the paused invocation.
      const answers =
        pending.length > 0 && !runConfig.abandonInterrupts ? answersInMessage(pending, params.newMessage) : undefined;
      if (answers) {
        return await this.resumeClaimed(
          {
            userId,
            sessionId,
            responses: answers.responses,
            runConfig: params.runConfig,
            abortSignal: params.abortSignal,
          },
          session,
          claim,
          answers.message,
          params.stateDelta,
        );
      }
      if (pending.length > 0 && !runConfig.abandonInterrupts) {
        throw new PendingInterruptError(
          `Session '${sessionId}' has ${pending.length} unanswered interrupt(s) (${pending.map((i) => i.id).join(', ')}).`,
          pending.map((i) => i.id),
          {
            session: this.keyOf(userId, sessionId),
            remedy:
              'Answer them with runner.resume({ responses }), or pass runConfig.abandonInterrupts to start a new turn anyway.',
          },
        );
      }
      const invocationId = params.invocationId ?? flat(`e-${newId()}`);
      if (params.invocationId !== undefined && session.events.some((e) => e.invocationId === invocationId)) {
        throw new InvocationExistsError(
          `Session '${sessionId}' already holds invocation '${invocationId}'; nothing was stored.`,
          {
            session: this.keyOf(userId, sessionId),
            invocationId,
            remedy: `Continue it with runner.resume({ userId, sessionId, invocationId: '${invocationId}' }), or choose a new invocationId.`,
          },
        );
      }
      const agent = runConfig.restartFromRoot ? this.agent : findAgentToRun(this.agent, session.events);
      const input = await this.structuredInput(agent, params);
      const content = params.newMessage !== undefined ? toUserContent(params.newMessage) : agent.inputMessage(input);
      // What a resume in another process needs to restart this invocation the same way.
      const start: InvocationStart = {};
      if (agent !== this.agent) start.startAgent = agent.name;
      if (params.input !== undefined) start.input = input;
      const opening = createEvent({
        invocationId,
        author: 'user',
        content,
        actions: {
          stateDelta: { ...params.stateDelta },
          ...(Object.keys(start).length ? { agentState: asAgentState(start) } : {}),
        },
      });
      return this.setup(session, runConfig, params.abortSignal, claim, {
        invocationId,
        agent,
        userContent: content,
        input,
        opening,
        resumeFrom: undefined,
        answers: new Map(),
      });
    } catch (error) {
      await claim.release();
      throw error;
    }
  }

  private async prepareResume(params: ResumeParams): Promise<InvocationSetup> {
    checkIds(params);
    refuseForbiddenKeys(params.responses, 'responses');
    resolveRunConfig(params.runConfig);
    const { session, claim } = await this.claim(params.userId, params.sessionId);
    return this.resumeClaimed(params, session, claim);
  }

  /** {@link prepareResume} on a session already claimed; `message` is stored with the answers (a text answer). */
  private async resumeClaimed(
    params: ResumeParams,
    session: Session,
    claim: SessionClaim,
    message?: Content,
    stateDelta?: Record<string, unknown>,
  ): Promise<InvocationSetup> {
    const { userId, sessionId } = params;
    const runConfig = resolveRunConfig(params.runConfig);
    try {
      const events = session.events;
      const key = this.keyOf(userId, sessionId);
      const invocationId =
        params.invocationId ??
        (openInterrupts(events).length > 0 ? events[events.length - 1]!.invocationId : undefined);
      if (!invocationId) {
        refuseAnsweredTwice(events, params.responses, [], key);
        throw new ConfigurationError(
          `Session '${sessionId}' has no open interrupts to answer. To continue a run that stopped (e.g. its process died), pass its invocationId.`,
        );
      }
      const start = events.findIndex(
        (e) => e.invocationId === invocationId && e.author === 'user' && e.content !== undefined,
      );
      if (start < 0)
        throw new ConfigurationError(
          `Invocation '${invocationId}' is not in session '${sessionId}'. Use an invocationId from that session's events.`,
        );
      refuseRewound(events, invocationId, sessionId);
      if (events.slice(start + 1).some((e) => e.invocationId !== invocationId && !isCompactionRecord(e))) {
        throw new ConfigurationError(
          `Invocation '${invocationId}' of session '${sessionId}' was followed by newer turns and can no longer be resumed.`,
        );
      }
      const open = openInterrupts(events, invocationId);
      refuseAnsweredTwice(events, params.responses, open, key);
      const earlier = answersOf(events, invocationId);
      const checked = await checkResponses(open, params.responses ?? {}, key);
      // Resuming a paused invocation without answering anything would only raise the same
      // interrupts again (and store them again): refuse it, under the session's claim, storing nothing.
      if (open.length > 0 && Object.keys(checked).length === 0) {
        throw new ConfigurationError(
          `Invocation '${invocationId}' of session '${sessionId}' is waiting for answers to ${open.map((i) => i.id).join(', ')}; this resume answered none. Pass responses: { '<interrupt id>': value }.`,
        );
      }
      const answers = new Map([...earlier, ...Object.entries(checked)]);
      const userEvent = events[start]!;
      const recorded = invocationStart(userEvent);
      const agent = recorded.startAgent !== undefined ? this.agent.findAgent(recorded.startAgent) : this.agent;
      if (!agent)
        throw new ConfigurationError(
          `Invocation '${invocationId}' started at agent '${String(recorded.startAgent)}', which is no longer in the tree of '${this.agent.name}'.`,
        );
      const input = recorded.input ?? inputFromContent(userEvent.content);
      const opening = Object.keys(checked).length
        ? createEvent({
            invocationId,
            author: 'user',
            ...(message ? { content: message } : {}),
            actions: { stateDelta: { ...stateDelta }, agentState: asAgentState({ resume: { responses: checked } }) },
          })
        : undefined;
      return this.setup(session, runConfig, params.abortSignal, claim, {
        invocationId,
        agent,
        userContent: userEvent.content,
        input,
        opening,
        resumeFrom: start + 1,
        answers,
      });
    } catch (error) {
      await claim.release();
      throw error;
    }
  }

  private setup(
    session: Session,
    runConfig: ReturnType<typeof resolveRunConfig>,
    abortSignal: AbortSignal | undefined,
    claim: SessionClaim,
    turn: InvocationTurn,
  ): InvocationSetup {
    // Resolved on first use (not in the constructor) so providers may register after the runner is made.
    if (typeof this.defaultModel === 'string') this.defaultModel = resolveModel(this.defaultModel);
    // One literal of fixed shape (no spread of a second object into it): built once per run, and a
    // spread-then-extend object of this size is measurably slower to build and to read.
    return {
      invocationId: turn.invocationId,
      agent: turn.agent,
      userContent: turn.userContent,
      input: turn.input,
      opening: turn.opening,
      resumeFrom: turn.resumeFrom,
      answers: turn.answers,
      session,
      sessionService: this.sessionService,
      plugins: this.pluginManager,
      rootAgent: this.agent,
      defaultModel: this.defaultModel,
      runConfig,
      abortSignal,
      claim,
      redact: this.redact,
      artifactService: this.artifactService,
      memoryService: this.memoryService,
      compaction: this.compaction,
      contextCache: this.contextCache,
    };
  }

  /**
   * Claims the session (this process's lock, and the store's lease where it has leases) and then
   * reads it, so what the run starts from is what no one else can change until it ends.
   */
  private async claim(userId: string, sessionId: string): Promise<{ session: Session; claim: SessionClaim }> {
    const key = { appName: this.appName, userId, sessionId };
    // Stores that can read the session with the lease (one round trip instead of two) are asked to.
    const read = this.sessions.readPlan(key);
    let claim: SessionClaim;
    try {
      claim = await claimSession(this.sessionService, key, this.leaseTtlMs, read);
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
      await this.createMissing(userId, sessionId);
      claim = await claimSession(this.sessionService, key, this.leaseTtlMs, read);
    }
    try {
      // Incrementally after the copy the previous turn left, when there is one (see SessionCache).
      const session =
        (await this.sessions.read(this.sessionService, key, claim.session)) ??
        (await this.createMissing(userId, sessionId));
      return { session, claim };
    } catch (error) {
      await claim.release();
      throw error;
    }
  }

  private async createMissing(userId: string, sessionId: string): Promise<Session> {
    if (this.autoCreateSession) return this.sessionService.createSession({ appName: this.appName, userId, sessionId });
    throw new SessionNotFoundError(`Session '${sessionId}' not found for app '${this.appName}' and user '${userId}'.`, {
      session: this.keyOf(userId, sessionId),
      remedy: `Create it first with runner.sessionService.createSession({ appName: '${this.appName}', userId: '${userId}' }), or set autoCreateSession.`,
    });
  }

  private keyOf(userId: string, sessionId: string): SessionKey {
    return { appName: this.appName, userId, sessionId };
  }

  private async structuredInput(agent: BaseAgent, params: RunParams): Promise<Record<string, unknown>> {
    // A text message stands for { request: text }; an agent that runs on its input may need more (refused, naming it).
    if (params.input === undefined) return messageInput(agent, toUserContent(params.newMessage!));
    if (typeof params.input !== 'object' || params.input === null || Array.isArray(params.input)) {
      throw new ConfigurationError(`run's input must be a plain object; got ${JSON.stringify(params.input)}.`);
    }
    if (!agent.inputSchema) return params.input;
    const checked = await validate(agent.inputSchema, params.input);
    if (!checked.ok)
      throw new InputValidationError(
        `The input for agent '${agent.name}' does not match its inputSchema: ${checked.message}. Pass an input with these fields.`,
      );
    return checked.value as Record<string, unknown>;
  }
}

/** A runner with an in-memory session store (and, unless given, an in-memory artifact store, as ADK's), for tests and quick experiments. */
export class InMemoryRunner extends Runner {
  constructor(options: Omit<RunnerOptions, 'appName' | 'sessionService'> & { appName?: string }) {
    super({
      ...options,
      appName: options.appName ?? 'InMemoryRunner',
      sessionService: new InMemorySessionService(),
      artifactService: options.artifactService ?? new InMemoryArtifactService(),
    });
  }
}

function collectToolsets(agent: BaseAgent, into: Set<BaseToolset>, seen: Set<BaseAgent>): void {
  if (seen.has(agent)) return;
  seen.add(agent);
  if (agent instanceof LlmAgent) {
    for (const toolset of agent.toolsets) into.add(toolset);
    for (const tool of agent.tools) if (tool instanceof AgentTool) collectToolsets(tool.agent, into, seen);
  }
  for (const child of agent.subAgents) collectToolsets(child, into, seen);
}

function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}
