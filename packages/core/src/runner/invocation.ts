import type { ContextCacheOptions } from '../models/context-cache.js';
import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { BaseAgent } from '../agents/base-agent.js';
import { failingAgentPath } from '../agents/base-agent.js';
import { failingNodeOf } from '../workflow/failing-node.js';
import { InvocationContext, type InvocationShared } from '../agents/invocation-context.js';
import { fanInAgentsOf } from '../agents/llm/branch-visibility.js';
import type { Content } from '../events/content.js';
import { createEvent, type Event, type InterruptInfo } from '../events/event.js';
import {
  GuardrailTrippedError,
  LeaseLostError,
  RunCancelledError,
  RunDrainedError,
  RunLimitError,
  StorageError,
  TroupeError,
} from '../errors.js';
import type { BaseLlm } from '../models/base-llm.js';
import type { Session, SessionService } from '../sessions/session.js';
import { TEMP_PREFIX } from '../sessions/state-keys.js';
import { syncAppendOf } from '../sessions/sync-append.js';
import { linkedAbortController } from '../utils/abort.js';
import type { Redactor } from '../utils/redact.js';
import type { PluginManager } from './plugin-manager.js';
import { ChildStop } from '../agents/child-stop.js';
import { TAKEN, type EventSink } from '../agents/event-sink.js';
import { storeWhenBack } from './late-error-record.js';
import { recordStoredOutcome, type StoredOutcome, wasStored } from './stored-outcome.js';
import { compactAfterRun, type CompactionOptions } from './compaction.js';
import type { SessionClaim } from './session-claim.js';
import type { ResolvedRunConfig } from './run-config.js';
import { addUsage, emptyUsage, type RunResult, type RunStatus } from './run-result.js';

/** Everything needed to run (or resume) one invocation. Internal. */
export interface InvocationSetup {
  invocationId: string;
  session: Session;
  sessionService: SessionService;
  plugins: PluginManager;
  rootAgent: BaseAgent;
  /** The agent that answers: the root, the agent of an earlier transfer, or the one being resumed. */
  agent: BaseAgent;
  defaultModel: BaseLlm | string | undefined;
  runConfig: ResolvedRunConfig;
  abortSignal: AbortSignal | undefined;
  userContent: Content | undefined;
  input: Record<string, unknown>;
  /** Appended before the agent runs: the user's message, or the record of answers given on resume. */
  opening: Event | undefined;
  /** On resume: where this invocation's events start in the session. */
  resumeFrom: number | undefined;
  answers: ReadonlyMap<string, unknown>;
  /** The run's hold on its session (lock and lease), released when the run ends. */
  claim: SessionClaim;
  /** Masks secrets in the errors the run stores. */
  redact: Redactor;
  artifactService: ArtifactService | undefined;
  memoryService: MemoryService | undefined;
  /** Summarise older events after a completed run (Runner's `compaction`). */
  compaction: Readonly<CompactionOptions> | undefined;
  /** The runner's prompt caching (Runner's `contextCache`, checked). */
  contextCache?: Required<ContextCacheOptions> | false | undefined;
}

/** How a caller iterating the run takes part in it. */
export interface InvocationStream {
  /** Takes every event the caller sees (partial ones, stored ones, the error event); resolves once taken. */
  deliver: EventSink;
  /**
   * Set by runInvocation: call it when the caller stops iterating, and the run ends as abandoned
   * without waiting for busy steps. (A callback, not an AbortSignal: a signal costs microseconds to make, per run.)
   */
  leave?: () => void;
}

/** How an invocation ended: its result, and the error a caller iterating it gets thrown. */
export interface InvocationEnd {
  result: RunResult;
  thrown?: Error;
}

/**
 * Runs the agent and keeps the session the single source of truth: every non-partial event is
 * appended before the agent goes on (the agent's push resolves only once its event is stored and,
 * when a caller iterates the run, taken), limits and cancellation end the run with a stored error
 * event, and the outcome is the result. Events travel as plain calls (see {@link EventSink}).
 */
export async function runInvocation(setup: InvocationSetup, stream?: InvocationStream): Promise<InvocationEnd> {
  const { session, sessionService, plugins, runConfig } = setup;
  const controller = linkedAbortController(setup.abortSignal);
  const timer =
    runConfig.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          controller.abort(
            new RunLimitError(
              'timeout',
              `The run took longer than runConfig.timeoutMs (${runConfig.timeoutMs} ms) and was stopped. Raise the limit or make the agents faster.`,
            ),
          );
        }, runConfig.timeoutMs);
  const shared: InvocationShared = {
    invocationId: setup.invocationId,
    runConfig,
    plugins,
    rootAgent: setup.rootAgent,
    defaultModel: setup.defaultModel,
    fanIn: fanInAgentsOf(setup.rootAgent),
    llmCalls: 0,
    transfers: 0,
    usage: emptyUsage(),
    endInvocation: false,
    answers: setup.answers,
    redact: setup.redact,
    artifactService: setup.artifactService,
    memoryService: setup.memoryService,
    contextCache: setup.contextCache,
  };
  let ctx = new InvocationContext({
    shared,
    agent: setup.agent,
    branch: '',
    path: treePath(setup.agent.parentAgent),
    session,
    sessionService,
    userContent: setup.userContent,
    input: setup.input,
    abortSignal: controller.signal,
    historyScope: undefined,
    loopScope: undefined,
    resumeFrom: setup.resumeFrom,
  });
  const events: Event[] = [];
  // Made on the first pause: most runs have none.
  let interrupts: Map<string, InterruptInfo> | undefined;
  const usage = shared.usage;
  const signal = controller.signal;
  const { claim } = setup;
  const deliver = stream?.deliver;
  // A session taken over by another process: stop, since nothing this run writes would be stored.
  claim.keepAlive((lost) => controller.abort(lost));
  let output: unknown;
  let status: RunStatus = 'completed';
  let failure: Error | undefined;
  let finished = false;
  let abandoned = false;
  let lateRecord: Event | undefined;
  // Until the opening event is stored the run has left no trace, and a failure stores none either.
  let opened = false;
  // What the run may have stored besides `events`: a write that failed may have landed all the same
  // (a connection lost during COMMIT), until a read of the session says otherwise.
  let maybeStored = false;
  // The run's end (its error event) is stored.
  let recorded = false;
  // How the runner stops the tree after a stored event: the invocation ended, or the run was cancelled.
  const treeStop = new ChildStop();
  let stopReason: unknown;
  if (stream) {
    stream.leave = () => {
      abandoned = true;
      if (!signal.aborted) controller.abort(RUN_ENDED);
    };
  }
  const hasOnEvent = plugins.has('onEvent');
  /** A stored event is the run's: its usage, output and interrupts. */
  const record = (stored: Event): void => {
    events.push(stored);
    if (stored.usage) addUsage(usage, stored.author, stored.usage);
    if (stored.output !== undefined) output = stored.output;
    // A graph workflow's output is its terminal node's, and none when that node produced none (ADK).
    else if (stored.nodeInfo !== undefined && stored.author === setup.agent.name && stored.actions.endOfAgent)
      output = undefined;
    if (stored.interrupt) (interrupts ??= new Map()).set(stored.interrupt.id, stored.interrupt);
  };
  /** The runner's own failure (a store, a plugin, a caller who left), not the agents': the tree is stopped, and the run ends with this error. */
  const fail = (error: unknown): never => {
    stopReason = error;
    return treeStop.stop();
  };
  /** After every stored event: an ended invocation or a cancelled run starts nothing more. */
  const stopIfEnded = (): void => {
    if (shared.endInvocation) treeStop.stop();
    if (signal.aborted) fail(signal.reason);
  };
  const take = async (pushed: Event): Promise<void> => {
    try {
      const event = hasOnEvent ? ((await plugins.run('onEvent', { context: ctx, event: pushed })) ?? pushed) : pushed;
      if (event.partial) {
        if (deliver) await deliver(event);
        return;
      }
      let stored: Event;
      try {
        stored = await sessionService.appendEvent({ session, event, lease: claim.lease });
      } catch (error) {
        if (error instanceof StorageError) maybeStored = true;
        throw error;
      }
      record(stored);
      if (deliver) await deliver(stored);
    } catch (error) {
      fail(error);
    }
    stopIfEnded();
  };
  // With no plugin to consult and no one to deliver to, a store that appends without I/O takes each
  // event in the turn it is pushed: no promise per event on the run's busiest path.
  const appendNow = hasOnEvent || deliver ? undefined : syncAppendOf(sessionService);
  const takeNow = appendNow
    ? (event: Event): void => {
        if (event.partial) return;
        let stored: Event;
        try {
          stored = appendNow({ session, event, lease: claim.lease });
        } catch (error) {
          if (error instanceof StorageError) maybeStored = true;
          return fail(error);
        }
        record(stored);
        stopIfEnded();
      }
    : undefined;
  const sink = new SerialSink(take, takeNow);
  let tree: Promise<void> | undefined;
  try {
    // A new user message (not a resume's answers) may be rewritten by plugins before it is stored.
    if (setup.opening?.content && setup.resumeFrom === undefined && plugins.has('onUserMessage')) {
      const { opening } = setup;
      const message = await plugins.run('onUserMessage', {
        context: ctx,
        message: opening.content!,
        actions: opening.actions,
      });
      if (message) {
        opening.content = message;
        ctx = ctx.with({ userContent: message });
      }
    }
    if (setup.opening) await appendOpening(setup.opening);
    opened = true;
    await plugins.run('beforeRun', { context: ctx });
    tree = setup.agent.runInto(ctx, sink.push);
    try {
      // Only a caller's signal, a timeout or a caller that can leave can end a run while a step is
      // busy: without them, awaiting the tree itself saves a promise and a listener per run.
      await (setup.abortSignal || timer || stream ? untilAborted(tree, signal) : tree);
    } catch (stopped) {
      if (!treeStop.caught(stopped)) throw stopped;
      // The tree stopped after a stored event: the invocation ended there, or was cancelled.
      if (stopReason !== undefined) throw stopReason;
    }
    finished = true;
  } catch (caught) {
    // Nothing more is stored for the tree; an append already under way lands before the ending.
    await sink.settle(RUN_ENDED);
    if (!abandoned) {
      const error = classify(caught, setup.abortSignal, signal);
      status =
        error instanceof GuardrailTrippedError
          ? 'blocked'
          : error instanceof RunLimitError
            ? 'limit'
            : error instanceof RunCancelledError || error instanceof RunDrainedError
              ? 'cancelled'
              : 'failed';
      failure = error;
      // A drained run (its process shutting down) stores no ending, so another process resumes it.
      if (!(error instanceof RunDrainedError)) lateRecord = await storeErrorEvent(error, caught);
    }
  }
  // Events pushed from here on (work that ignored the signal) are never stored.
  sink.close(RUN_ENDED);
  // Not waited for: a step still in flight must not hold the session.
  tree?.catch(() => undefined);
  if (timer) clearTimeout(timer);
  // After a normal end nothing is running; otherwise stop whatever still is.
  if (!finished && !signal.aborted) controller.abort(RUN_ENDED);
  controller.dispose();
  for (const key of Object.keys(session.state)) if (key.startsWith(TEMP_PREFIX)) delete session.state[key];
  // Still under the run's claim, so the compaction lands right after this invocation.
  if (finished && !failure && !interrupts && setup.compaction) {
    await compactAfterRun({
      options: setup.compaction,
      session,
      sessionService,
      claim,
      ctx,
      abortSignal: setup.abortSignal,
      redact: setup.redact,
    });
  }
  if (lateRecord) void storeWhenBack(sessionService, session, lateRecord, claim);
  else await claim.release();
  // A caller that stopped iterating early abandoned the run.
  if (!finished && !failure) status = 'cancelled';
  if (status === 'completed' && interrupts) status = 'interrupted';
  const result: RunResult = {
    status,
    invocationId: setup.invocationId,
    events,
    output,
    state: { ...session.state },
    usage,
    interrupts: interrupts ? [...interrupts.values()] : [],
  };
  if (failure) result.error = failure;
  if (failure instanceof RunLimitError) result.stopReason = failure.limit;
  const end: InvocationEnd = { result };
  if (failure) end.thrown = failure;
  try {
    await plugins.run('afterRun', { context: ctx, result });
  } catch (error) {
    end.thrown = error as Error;
  }
  if (end.thrown) recordStoredOutcome(end.thrown, { invocationId: setup.invocationId, stored: storedOutcome() });
  return end;

  /**
   * Appends the opening event. A store failure there may hide a write that landed (a connection
   * lost during COMMIT): the session is read back to tell "nothing stored" from "stored".
   */
  async function appendOpening(opening: Event): Promise<void> {
    try {
      await sessionService.appendEvent({ session, event: opening, lease: claim.lease });
    } catch (error) {
      if (error instanceof StorageError) {
        const landed = await wasStored(sessionService, session, opening);
        if (landed !== false) maybeStored = true;
        // It is in the session: a failure from here on is recorded after it, as for any started run.
        if (landed === true) opened = true;
      }
      throw error;
    }
  }

  /** What the run leaves stored, for the caller it throws to (see {@link StoredOutcome}). */
  function storedOutcome(): StoredOutcome {
    if (!failure || recorded) return 'outcome';
    return !opened && events.length === 0 && !maybeStored ? 'nothing' : 'unknown';
  }

  /** Stores (and shows) the event recording a failure; returns it when the store is down, to store later. */
  async function storeErrorEvent(error: Error, caught: unknown): Promise<Event | undefined> {
    const path = failingAgentPath(caught);
    // A workflow node's failure names the node run: its path, run id and tries (ADK's NodeErrorEvent).
    const node = failingNodeOf(caught);
    let errorEvent = createEvent({
      invocationId: setup.invocationId,
      author: node?.name ?? (path ? path.slice(path.lastIndexOf('/') + 1) : setup.agent.name),
      path: path ?? setup.agent.name,
      errorCode: error instanceof TroupeError ? error.code : 'ERROR',
      errorMessage: setup.redact(error.message),
      ...(node ? { nodeInfo: { ...node.info } } : {}),
    });
    let late: Event | undefined;
    try {
      if (hasOnEvent) errorEvent = (await plugins.run('onEvent', { context: ctx, event: errorEvent })) ?? errorEvent;
      // A run that left no trace (its opening event is not stored) stores none of its failure either.
      if (opened) {
        events.push(await sessionService.appendEvent({ session, event: errorEvent, lease: claim.lease }));
        recorded = true;
      }
    } catch (refused) {
      // The store is down: the record is stored once it is back (the session stays claimed until
      // then). Other refusals (a lost lease, a plugin) leave it unstored; the result still reports
      // the failure.
      if (refused instanceof StorageError && opened) late = errorEvent;
    }
    // A caller who left meanwhile does not see it.
    if (deliver) await deliver(errorEvent).catch(() => undefined);
    return late;
  }
}

/**
 * Takes pushed events one at a time, in the order they were pushed, whoever pushes them (parallel
 * branches, concurrent tool calls): the next waits until the one before it is stored and taken.
 * Once a take fails, the waiting and later pushes fail with the same error, so every producer stops.
 */
class SerialSink {
  private busy = false;
  private readonly waiting: { event: Event; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private failure: { error: unknown } | undefined;
  /** The take under way, if any. */
  private current: Promise<void> | undefined;

  /** `takeSync`: a take that finishes in the turn it is called (then nothing ever waits). */
  constructor(
    private readonly take: (event: Event) => Promise<void>,
    private readonly takeSync?: (event: Event) => void,
  ) {}

  readonly push = (event: Event): Promise<void> => {
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.takeSync) {
      try {
        this.takeSync(event);
      } catch (error) {
        this.close(error);
        return Promise.reject(error);
      }
      return TAKEN;
    }
    if (this.busy) return new Promise((resolve, reject) => this.waiting.push({ event, resolve, reject }));
    this.busy = true;
    return this.takeNow(event);
  };

  /** Refuses later pushes (and any still waiting) with `error`. */
  close(error: unknown): void {
    this.failure ??= { error };
    for (const pending of this.waiting.splice(0)) pending.reject(this.failure.error);
  }

  /** {@link close}, then waits for the take under way (its append lands before whatever comes next). */
  async settle(error: unknown): Promise<void> {
    this.close(error);
    await this.current?.catch(() => undefined);
  }

  private async takeNow(event: Event): Promise<void> {
    try {
      await (this.current = this.take(event));
    } catch (error) {
      this.close(error);
      throw error;
    } finally {
      this.busy = false;
      this.current = undefined;
      const next = this.waiting.shift();
      if (next) {
        this.busy = true;
        this.takeNow(next.event).then(next.resolve, next.reject);
      }
    }
  }
}

/** The tree's promise, or the run's abort reason as soon as it aborts (even while a step ignoring the signal is busy). */
function untilAborted(tree: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    tree.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

// One shared reason (an Error captures a stack when made): it only reaches work still running after the run ended.
const RUN_ENDED = new RunCancelledError('The run ended.');

function classify(error: unknown, userSignal: AbortSignal | undefined, runSignal: AbortSignal): Error {
  if (
    error instanceof RunLimitError ||
    error instanceof RunCancelledError ||
    error instanceof RunDrainedError ||
    error instanceof LeaseLostError
  )
    return error;
  // Whatever a cancelled step threw (an AbortError, a tool's own error), the run was cancelled.
  const reason: unknown = runSignal.aborted ? runSignal.reason : undefined;
  if (reason instanceof RunDrainedError || reason instanceof LeaseLostError || reason instanceof RunLimitError)
    return reason;
  if (userSignal?.aborted) return new RunCancelledError(undefined, { cause: error });
  if (error instanceof Error) return error;
  return new TroupeError('ERROR', `The run failed with a non-Error value: ${String(error)}`, { cause: error });
}

/** Names from the root down to `agent`, joined by `/`. */
export function treePath(agent: BaseAgent | undefined): string {
  const names: string[] = [];
  for (let a = agent; a; a = a.parentAgent) names.push(a.name);
  return names.reverse().join('/');
}
