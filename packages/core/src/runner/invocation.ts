import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { MemoryService } from '../memory/memory-service.js';
import type { BaseAgent } from '../agents/base-agent.js';
import { failingAgentPath } from '../agents/base-agent.js';
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
import { linkedAbortController } from '../utils/abort.js';
import type { Redactor } from '../utils/redact.js';
import type { PluginManager } from './plugin-manager.js';
import { storeWhenBack } from './late-error-record.js';
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
}

/**
 * Runs the agent and keeps the session the single source of truth: every non-partial event is
 * appended before it is yielded (so the agent only continues once its event is stored), limits
 * and cancellation end the run with a stored error event, and the outcome lands in `sink`.
 */
export async function* runInvocation(
  setup: InvocationSetup,
  sink: { result?: RunResult },
): AsyncGenerator<Event, RunResult, undefined> {
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
  };
  const ctx = new InvocationContext({
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
  const interrupts = new Map<string, InterruptInfo>();
  const usage = shared.usage;
  const signal = controller.signal;
  const { claim } = setup;
  // A session taken over by another process: stop, since nothing this run writes would be stored.
  claim.keepAlive((lost) => controller.abort(lost));
  let output: unknown;
  let status: RunStatus = 'completed';
  let failure: Error | undefined;
  let finished = false;
  let lateRecord: Event | undefined;
  // Until the opening event is stored the run has left no trace, and a failure stores none either.
  let opened = false;
  const tree = setup.agent.runAsync(ctx);
  // Only a caller's signal or a timeout can cancel a run while a step is busy: without either, the
  // plain pull saves a promise per event (a lost lease is caught at the next append anyway).
  const pull = setup.abortSignal || timer ? new AbortablePull(tree, signal) : tree;
  try {
    if (setup.opening) await sessionService.appendEvent({ session, event: setup.opening, lease: claim.lease });
    opened = true;
    await plugins.run('beforeRun', { context: ctx });
    for (;;) {
      const step = await pull.next();
      if (step.done) break;
      let event = step.value;
      if (plugins.has('onEvent')) event = (await plugins.run('onEvent', { context: ctx, event })) ?? event;
      if (event.partial) {
        yield event;
        continue;
      }
      const stored = await sessionService.appendEvent({ session, event, lease: claim.lease });
      events.push(stored);
      if (stored.usage) addUsage(usage, stored.author, stored.usage);
      if (stored.output !== undefined) output = stored.output;
      if (stored.interrupt) interrupts.set(stored.interrupt.id, stored.interrupt);
      yield stored;
      if (shared.endInvocation) break;
      // After every stored event: a cancelled run starts nothing more.
      if (signal.aborted) throw signal.reason;
    }
    finished = true;
  } catch (caught) {
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
    if (error instanceof RunDrainedError) throw error;
    const path = failingAgentPath(caught);
    let errorEvent = createEvent({
      invocationId: setup.invocationId,
      author: path ? path.slice(path.lastIndexOf('/') + 1) : setup.agent.name,
      path: path ?? setup.agent.name,
      errorCode: error instanceof TroupeError ? error.code : 'ERROR',
      errorMessage: setup.redact(error.message),
    });
    try {
      if (plugins.has('onEvent'))
        errorEvent = (await plugins.run('onEvent', { context: ctx, event: errorEvent })) ?? errorEvent;
      events.push(await sessionService.appendEvent({ session, event: errorEvent, lease: claim.lease }));
    } catch (refused) {
      // The store is down: the record is stored once it is back (the session stays claimed until
      // then). Other refusals (a lost lease, a plugin) leave it unstored; the error below still
      // reports the failure.
      if (refused instanceof StorageError && opened) lateRecord = errorEvent;
    }
    yield errorEvent;
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    // After a normal end nothing is running; otherwise stop whatever still is.
    if (!finished && !signal.aborted) controller.abort(RUN_ENDED);
    controller.dispose();
    // A step still in flight (work that ignores the signal) is not waited for: its events are never
    // stored, and the session is free now.
    if (!finished) tree.return(undefined).catch(() => undefined);
    for (const key of Object.keys(session.state)) if (key.startsWith(TEMP_PREFIX)) delete session.state[key];
    // Still under the run's claim, so the compaction lands right after this invocation.
    if (finished && !failure && interrupts.size === 0 && setup.compaction) {
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
    // A consumer that stopped iterating early abandoned the run.
    if (!finished && !failure) status = 'cancelled';
    if (status === 'completed' && interrupts.size > 0) status = 'interrupted';
    const result: RunResult = {
      status,
      invocationId: setup.invocationId,
      events,
      output,
      state: { ...session.state },
      usage,
      interrupts: [...interrupts.values()],
    };
    if (failure) result.error = failure;
    if (failure instanceof RunLimitError) result.stopReason = failure.limit;
    sink.result = result;
    await plugins.run('afterRun', { context: ctx, result });
  }
  return sink.result;
}

/**
 * Pulls the tree's events, but gives up waiting as soon as the run is aborted, even while a step
 * that ignores the signal is still busy. One abort listener per run; each pull costs one promise.
 */
class AbortablePull {
  private reject: ((reason: unknown) => void) | undefined;

  constructor(
    private readonly tree: AsyncGenerator<Event, void, undefined>,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.reject?.(signal.reason), { once: true });
  }

  next(): Promise<IteratorResult<Event, void>> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason as Error);
    return new Promise((resolve, reject) => {
      this.reject = reject;
      this.tree.next().then(resolve, reject);
    });
  }
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
