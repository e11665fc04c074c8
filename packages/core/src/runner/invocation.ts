import type { BaseAgent } from '../agents/base-agent.js';
import { failingAgentPath } from '../agents/base-agent.js';
import { InvocationContext, type InvocationShared } from '../agents/invocation-context.js';
import type { Content } from '../events/content.js';
import { createEvent, type Event, type InterruptInfo } from '../events/event.js';
import { RunCancelledError, RunLimitError, TroupeError } from '../errors.js';
import type { BaseLlm } from '../models/base-llm.js';
import type { Session, SessionService } from '../sessions/session.js';
import { TEMP_PREFIX } from '../sessions/state-keys.js';
import { linkedAbortController } from '../utils/abort.js';
import type { PluginManager } from './plugin-manager.js';
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
  /** The runner's fan-in agent names; AgentTools and team skills add theirs (names only accumulate). */
  fanInAgents: Set<string>;
  runConfig: ResolvedRunConfig;
  abortSignal: AbortSignal | undefined;
  userContent: Content | undefined;
  input: Record<string, unknown>;
  /** Appended before the agent runs: the user's message, or the record of answers given on resume. */
  opening: Event | undefined;
  /** On resume: where this invocation's events start in the session. */
  resumeFrom: number | undefined;
  answers: ReadonlyMap<string, unknown>;
  /** Releases the session lock. */
  release: () => void;
}

/**
 * Runs the agent and keeps the session the single source of truth: every non-partial event is
 * appended before it is yielded (so the agent only continues once its event is stored), limits
 * and cancellation end the run with a stored error event, and the outcome lands in `sink`.
 */
export async function* runInvocation(setup: InvocationSetup, sink: { result?: RunResult }): AsyncGenerator<Event, RunResult, undefined> {
  const { session, sessionService, plugins, runConfig } = setup;
  const controller = linkedAbortController(setup.abortSignal);
  const timer =
    runConfig.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          controller.abort(new RunLimitError('timeout', `The run took longer than runConfig.timeoutMs (${runConfig.timeoutMs} ms) and was stopped. Raise the limit or make the agents faster.`));
        }, runConfig.timeoutMs);
  const shared: InvocationShared = {
    invocationId: setup.invocationId,
    runConfig,
    plugins,
    rootAgent: setup.rootAgent,
    defaultModel: setup.defaultModel,
    parallelAgentNames: setup.fanInAgents,
    llmCalls: 0,
    transfers: 0,
    usage: emptyUsage(),
    endInvocation: false,
    answers: setup.answers,
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
  let output: unknown;
  let status: RunStatus = 'completed';
  let failure: Error | undefined;
  let finished = false;
  try {
    if (setup.opening) await sessionService.appendEvent({ session, event: setup.opening });
    await plugins.run('beforeRun', { context: ctx });
    for await (let event of setup.agent.runAsync(ctx)) {
      if (plugins.has('onEvent')) event = (await plugins.run('onEvent', { context: ctx, event })) ?? event;
      if (event.partial) {
        yield event;
        continue;
      }
      const stored = await sessionService.appendEvent({ session, event });
      events.push(stored);
      if (stored.usage) addUsage(usage, stored.author, stored.usage);
      if (stored.output !== undefined) output = stored.output;
      if (stored.interrupt) interrupts.set(stored.interrupt.id, stored.interrupt);
      yield stored;
      if (shared.endInvocation) break;
    }
    finished = true;
  } catch (caught) {
    const error = classify(caught, setup.abortSignal);
    status = error instanceof RunLimitError ? 'limit' : error instanceof RunCancelledError ? 'cancelled' : 'failed';
    failure = error;
    const path = failingAgentPath(caught);
    let errorEvent = createEvent({
      invocationId: setup.invocationId,
      author: path ? path.slice(path.lastIndexOf('/') + 1) : setup.agent.name,
      path: path ?? setup.agent.name,
      errorCode: error instanceof TroupeError ? error.code : 'ERROR',
      errorMessage: error.message,
    });
    try {
      if (plugins.has('onEvent')) errorEvent = (await plugins.run('onEvent', { context: ctx, event: errorEvent })) ?? errorEvent;
      events.push(await sessionService.appendEvent({ session, event: errorEvent }));
    } catch {
      // The store (or a plugin) refused the error record; the error thrown below still reports the failure.
    }
    yield errorEvent;
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    // After a normal end nothing is running; otherwise stop whatever still is.
    if (!finished && !controller.signal.aborted) controller.abort(RUN_ENDED);
    controller.dispose();
    for (const key of Object.keys(session.state)) if (key.startsWith(TEMP_PREFIX)) delete session.state[key];
    setup.release();
    // A consumer that stopped iterating early abandoned the run.
    if (!finished && !failure) status = 'cancelled';
    if (status === 'completed' && interrupts.size > 0) status = 'interrupted';
    const result: RunResult = { status, events, output, state: { ...session.state }, usage, interrupts: [...interrupts.values()] };
    if (failure) result.error = failure;
    if (failure instanceof RunLimitError) result.stopReason = failure.limit;
    sink.result = result;
    await plugins.run('afterRun', { context: ctx, result });
  }
  return sink.result;
}

// One shared reason (an Error captures a stack when made): it only reaches work still running after the run ended.
const RUN_ENDED = new RunCancelledError('The run ended.');

function classify(error: unknown, userSignal: AbortSignal | undefined): Error {
  if (error instanceof RunLimitError || error instanceof RunCancelledError) return error;
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
