import type { InvocationContext } from '../agents/invocation-context.js';
import { isEventsStopped, type EventSink } from '../agents/event-sink.js';
import { createEvent, type Route } from '../events/event.js';
import {
  GuardrailTrippedError,
  LeaseLostError,
  RunCancelledError,
  RunDrainedError,
  RunLimitError,
  StorageError,
  TroupeError,
} from '../errors.js';
import { sleep } from '../utils/abort.js';
import { AgentNode } from './agent-node.js';
import { ToolNode } from './tool-node.js';
import type { BaseNode } from './base-node.js';
import { NodeFailedError, NodeSchemaValidationError, StateSchemaError } from './errors.js';
import type { Journal, RunRecord } from './journal.js';
import { checkSchema, end, NodeTry, record$, startEvent } from './node-try.js';
import { unwrapAnswer } from './request-input.js';
import { recordFailingNode } from './failing-node.js';
import { isRetryable, retryDelay } from './retry-config.js';
import type { StepBudget } from './step-budget.js';

/** What one workflow run shares with every node run in it. Internal. */
export interface WorkflowScope {
  /** The workflow's name: the author of its own events. */
  readonly workflow: string;
  /** The workflow's node path (`triage`, or `outer.triage` when nested). */
  readonly path: string;
  readonly ctx: InvocationContext;
  /** Where node events go: the workflow's sink, after the state schema check. */
  readonly sink: EventSink;
  /** Set when the workflow resumes: what the session says it did before. */
  readonly journal: Journal | undefined;
  /** Nodes made by `ctx.runNode` from functions, agents and tools, one per object. */
  readonly dynamicNodes: WeakMap<object, BaseNode>;
  /** The run's `maxSteps`, spent by the schedule's node runs and by `ctx.runNode` children. */
  readonly steps: StepBudget;
}

/** How a node run ended. */
export type RunOutcome =
  | { status: 'completed'; output: unknown; route: Route | undefined }
  | { status: 'waiting'; interruptIds: string[] }
  /** `waitForOutput` and the run gave neither output nor route: it did not complete. */
  | { status: 'no-output' };

/** One node run to do. */
export interface ChildRun {
  node: BaseNode;
  input: unknown;
  path: string;
  runId: string;
  /** Journal records of this run are those after this index (its parent's start). */
  after: number;
  signal: AbortSignal;
  /** The invocation context with `signal` as its abort signal, when the caller has one made (shared by its runs). */
  ctx?: InvocationContext;
  /** Where its events go (its parent's emit, or the workflow's sink). */
  forward: EventSink;
  /** Where its own children's journal records start when it has no record of its own (a dynamic workflow's entry). */
  childrenAfter?: number;
  /** Told as the run's end is handed on, in the same turn (so the schedule follows stored order). */
  onEnd?: RunEndListener;
  /** The node's slot in its graph, passed to `onEnd`. */
  slot?: number;
}

/** What hears a graph node run end (the run's schedule); an object, not a closure per run. */
export interface RunEndListener {
  runEnded(slot: number, outcome: RunOutcome): void;
}

const NO_ANSWER = Symbol('no answer');

/**
 * A new run's start record, until it is stored. It is stored as soon as the run is seen to take
 * time or to leave a trace: before it awaits anything, emits an event, asks for input or runs a
 * child, and before its failure is recorded. A function that returns its output at once never
 * does, and its end record (carrying its input) is its only record: it was never running where
 * anyone could see it, and a crash cannot fall inside it.
 */
export interface PendingStart {
  pending: boolean;
}

/**
 * Runs one node run durably: a run the session shows ended is not run again (its recorded output
 * is returned); a paused or interrupted run resumes (an answered RequestInput becomes its output,
 * other nodes run again and find their answers or their agent's progress); a new run stores a start
 * record, tries up to `retryConfig.maxAttempts` times, and stores an end record with its output.
 *
 * Not an async function: a new run whose node returns at once (most function nodes) ends in the
 * turn it starts, and when the store takes its end record in that turn too (an append with no I/O)
 * its outcome is returned as a value, with no promise at all.
 */
export function runChild(scope: WorkflowScope, run: ChildRun): RunOutcome | Promise<RunOutcome> {
  const record = scope.journal?.find(run.path, run.runId, run.after);
  if (record) return resumeChild(scope, run, record);
  const start: PendingStart = { pending: true };
  const startIndex = run.childrenAfter ?? Number.MAX_SAFE_INTEGER;
  let ended: RunOutcome | Promise<RunOutcome>;
  try {
    ended = new NodeTry(scope, run, 1, undefined, startIndex, NO_INPUTS, start).run();
  } catch (error) {
    return retryAfter(scope, run, error, 1, start, startIndex, undefined);
  }
  if (!(ended instanceof Promise)) return ended;
  return ended.then(undefined, (error: unknown) => retryAfter(scope, run, error, 1, start, startIndex, undefined));
}

/** A run the session has a record of: ended (its outcome), paused on its own request, or to run again. */
async function resumeChild(scope: WorkflowScope, run: ChildRun, record: RunRecord): Promise<RunOutcome> {
  if (record.ended) {
    const outcome: RunOutcome = record.endedWaiting
      ? { status: 'no-output' }
      : { status: 'completed', output: record.output, route: record.route };
    run.onEnd?.runEnded(run.slot!, outcome);
    return outcome;
  }
  const start: PendingStart = { pending: false };
  const answered = await answerOwnRequests(scope, run, record);
  if (answered) return answered;
  try {
    return await new NodeTry(
      scope,
      run,
      record.attempt,
      record.startIndex + 1,
      record.startIndex,
      answersFor(scope, record),
      start,
    ).run();
  } catch (error) {
    return retryAfter(scope, run, error, record.attempt, start, record.startIndex, record);
  }
}

/**
 * After a try failed: the failure passed on as the run's, or recorded and the node tried again
 * (after its retry delay) until a try succeeds or the retries are spent.
 */
async function retryAfter(
  scope: WorkflowScope,
  run: ChildRun,
  error: unknown,
  attempt: number,
  start: PendingStart,
  startIndex: number,
  record: RunRecord | undefined,
): Promise<RunOutcome> {
  const { node, path, runId } = run;
  for (;;) {
    if (isEventsStopped(error) || run.signal.aborted) throw passOn(error, path, attempt);
    // A failed run shows where it started (the failure is recorded after it), unless the store refuses.
    if (start.pending) {
      start.pending = false;
      await run.forward(startEvent(node, path, runId, attempt, run.input)).catch(() => undefined);
    }
    if (!mayRetry(error)) throw failed(run, attempt, passOn(error, path, attempt));
    const retry = node.retry;
    if (!retry || attempt >= retry.maxAttempts || !isRetryable(retry, error))
      throw failed(run, attempt, retry ? new NodeFailedError(path, attempt, error) : passOn(error, path, attempt));
    await run.forward(
      createEvent({
        author: node.name,
        nodeInfo: { path, runId, attempt },
        errorCode: error instanceof TroupeError ? error.code : 'ERROR',
        errorMessage: `Try ${attempt} of ${retry.maxAttempts} failed: ${error instanceof Error ? error.message : String(error)}`,
        actions: { agentState: record$({ node: 'failed' }) },
      }),
    );
    await sleep(retryDelay(retry, attempt), run.signal);
    attempt += 1;
    await run.forward(startEvent(node, path, runId, attempt, run.input));
    try {
      return await new NodeTry(
        scope,
        run,
        attempt,
        undefined,
        startIndex,
        record ? answersFor(scope, record) : {},
        start,
      ).run();
    } catch (next) {
      error = next;
    }
  }
}

/** A new run's answers to its own requests: none (shared, never written). */
const NO_INPUTS: Record<string, unknown> = Object.freeze({});

/**
 * A run paused only on its own RequestInput (and not rerunOnResume): its answer is its output.
 * Unanswered requests are raised again (a resumed run raises every open interrupt again).
 */
async function answerOwnRequests(
  scope: WorkflowScope,
  run: ChildRun,
  record: RunRecord,
): Promise<RunOutcome | undefined> {
  const { node } = run;
  // An agent or a tool asked through its own context: it runs again and reads its answers there.
  if (record.interrupts.length === 0 || node.rerunOnResume || node instanceof AgentNode || node instanceof ToolNode)
    return undefined;
  if (record.ownRequests.length !== record.interrupts.length) return undefined;
  const answers = scope.ctx.shared.answers;
  const values = record.ownRequests.map((id) => (answers.has(id) ? unwrapAnswer(answers.get(id)) : NO_ANSWER));
  if (values.some((v) => v === NO_ANSWER)) {
    const open: string[] = [];
    for (const interrupt of record.interrupts) {
      if (answers.has(interrupt.id)) continue;
      open.push(interrupt.id);
      await run.forward(
        createEvent({
          author: node.name,
          nodeInfo: { path: run.path, runId: run.runId, attempt: record.attempt },
          interrupt,
        }),
      );
    }
    return { status: 'waiting', interruptIds: open };
  }
  const output = values.length === 1 ? values[0] : values;
  if (node.outputSchema) await checkSchema(node.outputSchema, output, run.path, 'output');
  return end(run, record.attempt, { status: 'completed', output, route: undefined }, undefined);
}

/**
 * The answers a resumed run reads from `ctx.resumeInputs`: those to the interrupts it raised. A
 * new run of the node (a loop back to it) starts with none, though it may ask with the same id.
 */
function answersFor(scope: WorkflowScope, record: RunRecord): Record<string, unknown> {
  const answers = scope.ctx.shared.answers;
  const inputs: Record<string, unknown> = {};
  for (const interrupt of record.interrupts)
    if (answers.has(interrupt.id)) inputs[interrupt.id] = unwrapAnswer(answers.get(interrupt.id));
  return inputs;
}

/**
 * The error that ends a node run, remembered as that run's failure (see {@link recordFailingNode}):
 * not for what stops the whole run rather than this node (a limit, cancellation, a drain, the store).
 */
function failed(run: ChildRun, attempt: number, error: unknown): unknown {
  if (!endsRunItself(error))
    recordFailingNode(error, { name: run.node.name, info: { path: run.path, runId: run.runId, attempt } });
  return error;
}

/** What stops the whole run rather than one node: a limit, cancellation, a drain, the store. */
function endsRunItself(error: unknown): boolean {
  return (
    error instanceof RunLimitError ||
    error instanceof RunCancelledError ||
    error instanceof RunDrainedError ||
    error instanceof StorageError ||
    error instanceof LeaseLostError
  );
}

/** Errors that end the run as they are: the run's own ends (above), guardrails, schemas. */
function mayRetry(error: unknown): boolean {
  return !(
    endsRunItself(error) ||
    error instanceof GuardrailTrippedError ||
    error instanceof NodeSchemaValidationError ||
    error instanceof StateSchemaError
  );
}

/** Troupe's errors keep their code; anything else (a bug in a node's function) is named by node. */
export function passOn(error: unknown, path: string, attempt: number): unknown {
  if (isEventsStopped(error) || error instanceof TroupeError) return error;
  return new NodeFailedError(path, attempt, error);
}
