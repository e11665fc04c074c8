import type { InvocationContext } from '../agents/invocation-context.js';
import { isEventsStopped, EventsStopped, type EventSink } from '../agents/event-sink.js';
import { createEvent, type Event, type Route } from '../events/event.js';
import {
  GuardrailTrippedError,
  LeaseLostError,
  RunCancelledError,
  RunDrainedError,
  RunLimitError,
  StorageError,
  TroupeError,
} from '../errors.js';
import { linkedAbortController } from '../utils/abort.js';
import { runTasks } from '../utils/run-tasks.js';
import { toJsonSchema, validate } from '../utils/schema.js';
import { AgentNode } from './agent-node.js';
import type { BaseNode, NodeYield } from './base-node.js';
import { NodeFailedError, NodeSchemaValidationError, NodeTimeoutError, StateSchemaError } from './errors.js';
import type { Journal, NodeRecord, RunRecord } from './journal.js';
import { NodeContext, type NodeHost, type NodeResult, type RunNodeOptions } from './node-context.js';
import { node as toNode } from './node.js';
import { isRequestInput, REQUEST_INPUT_FUNCTION_CALL_NAME, unwrapAnswer, type RequestInput } from './request-input.js';
import { isRetryable, retryDelay } from './retry-config.js';

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
interface PendingStart {
  pending: boolean;
}

/**
 * Runs one node run durably: a run the session shows ended is not run again (its recorded output
 * is returned); a paused or interrupted run resumes (an answered RequestInput becomes its output,
 * other nodes run again and find their answers or their agent's progress); a new run stores a start
 * record, tries up to `retryConfig.maxAttempts` times, and stores an end record with its output.
 *
 * Not an async function: a new run whose node returns at once (most function nodes) ends in the
 * turn it starts, its one promise the store's taking of its end record.
 */
export function runChild(scope: WorkflowScope, run: ChildRun): Promise<RunOutcome> {
  const record = scope.journal?.find(run.path, run.runId, run.after);
  if (record) return resumeChild(scope, run, record);
  const start: PendingStart = { pending: true };
  const startIndex = run.childrenAfter ?? Number.MAX_SAFE_INTEGER;
  let ended: Promise<RunOutcome>;
  try {
    ended = new NodeTry(scope, run, 1, undefined, startIndex, NO_INPUTS, start).run();
  } catch (error) {
    return retryAfter(scope, run, error, 1, start, startIndex, undefined);
  }
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
    if (!mayRetry(error)) throw passOn(error, path, attempt);
    const retry = node.retry;
    if (!retry || attempt >= retry.maxAttempts || !isRetryable(retry, error))
      throw retry ? new NodeFailedError(path, attempt, error) : passOn(error, path, attempt);
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
  if (record.interrupts.length === 0 || node.rerunOnResume || node instanceof AgentNode) return undefined;
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
 * One try of a node run, and the engine's side of its context (`NodeHost`). A class rather than
 * closures: most nodes are small, and a try's closures and their context were most of what a
 * node run allocated.
 */
class NodeTry implements NodeHost {
  readonly path: string;
  readonly runId: string;
  /** Set once the try is over: what the node emits later is refused. */
  private closed = false;
  private route: Route | undefined;
  private output: unknown;
  /** Input requests raised so far (for their default ids). */
  private requests = 0;
  /** Interrupts raised in this try (by the node or below it); made on the first. */
  private interrupts: string[] | undefined;
  /** Run ids of `ctx.runNode` children by name; made on the first. */
  private childRuns: Map<string, number> | undefined;
  /** Only with a timeout: the try's own controller, aborted when it expires. */
  private readonly controller: (AbortController & { dispose(): void }) | undefined;
  private readonly signal: AbortSignal;
  private readonly nodeCtx: NodeContext;

  constructor(
    private readonly scope: WorkflowScope,
    private readonly child: ChildRun,
    readonly attempt: number,
    readonly resumeFrom: number | undefined,
    private readonly startIndex: number,
    readonly resumeInputs: Record<string, unknown>,
    private readonly start: PendingStart,
  ) {
    this.path = child.path;
    this.runId = child.runId;
    // A try needs a signal of its own only to be stopped at its timeout; else it shares its parent's
    // (a controller per try was a third of a small node's cost).
    this.controller = child.node.timeout === undefined ? undefined : linkedAbortController(child.signal);
    this.signal = this.controller?.signal ?? child.signal;
    const ctx =
      this.signal === scope.ctx.abortSignal
        ? scope.ctx
        : this.signal === child.signal && child.ctx
          ? child.ctx
          : scope.ctx.with({ abortSignal: this.signal });
    this.nodeCtx = new NodeContext(ctx, this);
  }

  /** The history branch an agent run by this node uses; only agent nodes ask. */
  get branch(): string {
    return this.scope.ctx.childBranch(this.scope.workflow, this.path.slice(this.scope.path.length + 1));
  }

  emit(event: Event): Promise<void> {
    if (this.closed) return Promise.reject(new EventsStopped());
    if (!event.nodeInfo) {
      event.nodeInfo = { path: this.path, runId: this.runId, attempt: this.attempt };
      if (!event.author) event.author = this.child.node.name;
      // State goes out with the node's next real event, never on a custom one.
      if (!event.partial && !event.customEvent) this.nodeCtx.applyTo(event.actions);
      if (event.route !== undefined) this.route = event.route;
    }
    if (event.interrupt && !event.partial) (this.interrupts ??= []).push(event.interrupt.id);
    // Both handed on now, in this order: an emit not awaited keeps its place among the node's events.
    const starting = this.started();
    const forwarded = this.child.forward(event);
    return starting ? Promise.all([starting, forwarded]).then(() => undefined) : forwarded;
  }

  runNode(nodeLike: unknown, input: unknown, options: RunNodeOptions | undefined): Promise<NodeResult> {
    // The child's records come after this run's start.
    const starting = this.started();
    const counters = (this.childRuns ??= new Map());
    const child = (): Promise<NodeResult> =>
      runDynamic(this.scope, this, nodeLike, input, options, counters, this.signal, this.startIndex);
    return starting ? starting.then(child) : child();
  }

  /**
   * Runs the try. Throws at once what the node throws at once. A node with no schema, timeout or
   * workers whose one item is ready (a function that returns, a join) ends here, in this turn.
   */
  run(): Promise<RunOutcome> {
    const { node } = this.child;
    if (node.inputSchema || node.parallelWorker || this.controller || node.outputSchema) return this.runAsync();
    const items = node.runTry(this.nodeCtx, this.child.input);
    if (Array.isArray(items) && items.length === 1) {
      const item: unknown = items[0];
      // An async function or an agent: one promise, awaited once (its start record stored first).
      if (isPromiseLike(item)) return this.awaitItem(item);
      const pending = this.take(item);
      if (!pending) return this.finish();
      return this.settle(pending);
    }
    return this.settle(this.takeAll(items));
  }

  /** {@link settle} for a node whose one item is a promise. */
  private async awaitItem(raw: PromiseLike<unknown>): Promise<RunOutcome> {
    try {
      const starting = this.started();
      if (starting) {
        // Handled now: it may fail while the start record is being stored.
        raw.then(undefined, ignore);
        await starting;
      }
      const pending = this.take(await raw);
      if (pending) await pending;
    } finally {
      this.closed = true;
      this.controller?.dispose();
    }
    return this.finish();
  }

  private runAsync(): Promise<RunOutcome> {
    const work = this.body();
    return this.settle(
      this.controller ? withTimeout(work, this.child.node.timeout!, this.controller, this.path) : work,
    );
  }

  /** Waits for the try's work, then ends it. */
  private async settle(work: Promise<void>): Promise<RunOutcome> {
    try {
      await work;
    } finally {
      this.closed = true;
      this.controller?.dispose();
    }
    return this.finish();
  }

  /** The try's work is done: its outcome, and its end record handed on. */
  private finish(): Promise<RunOutcome> {
    this.closed = true;
    const { node } = this.child;
    if (this.child.signal.aborted) throw this.child.signal.reason;
    if (this.interrupts) return Promise.resolve({ status: 'waiting', interruptIds: this.interrupts });
    const output = this.output;
    if (node.outputSchema && output !== undefined)
      return checkSchema(node.outputSchema, output, this.path, 'output').then((checked) => this.ended(checked));
    return this.ended(output);
  }

  private ended(output: unknown): Promise<RunOutcome> {
    // A run that never stored its start record ends in one record, which carries its input.
    const alone = this.start.pending;
    this.start.pending = false;
    if (this.child.node.waitForOutput && output === undefined && this.route === undefined)
      return end(this.child, this.attempt, { status: 'no-output' }, this.nodeCtx, alone);
    return end(this.child, this.attempt, { status: 'completed', output, route: this.route }, this.nodeCtx, alone);
  }

  /** Stores the pending start record (see {@link PendingStart}); undefined when it is stored already. */
  private started(): Promise<void> | undefined {
    if (!this.start.pending) return undefined;
    this.start.pending = false;
    const { child } = this;
    return child.forward(startEvent(child.node, child.path, child.runId, this.attempt, child.input));
  }

  private async body(): Promise<void> {
    const { child } = this;
    const { node } = child;
    if (node.inputSchema || node.parallelWorker || this.controller) await this.started();
    if (node.inputSchema) child.input = await checkSchema(node.inputSchema, child.input, this.path, 'input');
    if (node.parallelWorker) {
      this.output = await runWorkers(this.scope, this, child, this.signal, this.startIndex);
      return;
    }
    await this.takeAll(node.runTry(this.nodeCtx, child.input));
  }

  /** Takes every item the node gives. */
  private async takeAll(items: AsyncIterable<NodeYield> | Iterable<NodeYield>): Promise<void> {
    // A function node's one result comes as an array: no async iteration for it.
    if (Array.isArray(items)) {
      for (const raw of items as unknown[]) {
        let item = raw;
        if (isPromiseLike(raw)) {
          const starting = this.started();
          if (starting) {
            // Handled now: it may fail while the start record is being stored.
            raw.then(undefined, ignore);
            await starting;
          }
          item = await raw;
        }
        const pending = this.take(item);
        if (pending) await pending;
      }
      return;
    }
    await this.started();
    for await (const item of items) {
      const pending = this.take(item);
      if (pending) await pending;
    }
  }

  /** One item the node gave: its output, an event to hand on or a request to raise (those return a promise). */
  private take(item: unknown): Promise<void> | undefined {
    if (item === undefined || item === null) return undefined;
    if (isRequestInput(item)) return this.raise(item);
    if (isEvent(item)) {
      if (item.output !== undefined) this.output = item.output;
      return this.emit(item);
    }
    this.output = item;
    return undefined;
  }

  private raise(request: RequestInput): Promise<void> {
    // Stable: the node's path and run (a child's path already ends in its run id), so a rerun asks with the same id.
    const { path, runId } = this;
    const base = path.endsWith(`@${runId}`) ? path : `${path}@${runId}`;
    const id = request.interruptId ?? (this.requests === 0 ? base : `${base}:${this.requests + 1}`);
    this.requests += 1;
    return raiseRequest(this, this.child.node.name, request, id, this.scope.ctx.path);
  }
}

/** Stores the run's end record (with its last state writes) and tells the schedule, in one turn. */
function end(
  run: ChildRun,
  attempt: number,
  outcome: RunOutcome,
  nodeCtx: NodeContext | undefined,
  alone = false,
): Promise<RunOutcome> {
  const record: NodeRecord & { node: 'ended' } = { node: 'ended' };
  if (outcome.status === 'no-output') record.waiting = true;
  if (alone) {
    record.alone = true;
    if (run.input !== undefined) record.input = run.input;
  }
  const event = createEvent({
    author: run.node.name,
    nodeInfo: { path: run.path, runId: run.runId, attempt },
    actions: { agentState: record$(record) },
  });
  if (outcome.status === 'completed') {
    if (outcome.output !== undefined) event.output = outcome.output;
    if (outcome.route !== undefined) event.route = outcome.route;
  }
  nodeCtx?.applyTo(event.actions);
  run.onEnd?.runEnded(run.slot!, outcome);
  return run.forward(event).then(() => outcome);
}

/** A `parallelWorker` node: one child run per item, at most `maxParallelWorkers` at a time. */
async function runWorkers(
  scope: WorkflowScope,
  host: NodeHost,
  run: ChildRun,
  signal: AbortSignal,
  startIndex: number,
): Promise<unknown[]> {
  // A single value is a list of one (ADK).
  const items: unknown[] = Array.isArray(run.input) ? run.input : [run.input];
  const inner = workerOf(run.node);
  const results = await runTasks(
    items.length,
    run.node.maxParallelWorkers ?? Math.max(items.length, 1),
    signal,
    `workflow node '${run.path}'`,
    (i, itemSignal) =>
      runChild(scope, {
        node: inner,
        input: items[i],
        path: `${run.path}.${inner.name}@${i}`,
        runId: String(i),
        after: startIndex,
        signal: itemSignal,
        forward: (event) => host.emit(event),
      }),
  );
  return results.map((r) => (r.status === 'completed' ? r.output : undefined));
}

const workers = new WeakMap<BaseNode, BaseNode>();

/** The node a parallel worker runs per item: the same node without `parallelWorker`. */
function workerOf(original: BaseNode): BaseNode {
  let inner = workers.get(original);
  if (!inner) {
    inner = Object.create(Object.getPrototypeOf(original) as object) as BaseNode;
    Object.assign(inner, original, { parallelWorker: false, maxParallelWorkers: undefined });
    workers.set(original, inner);
  }
  return inner;
}

/** `ctx.runNode`: a child of the running node, durable like the workflow's own nodes. */
async function runDynamic(
  scope: WorkflowScope,
  host: NodeHost,
  nodeLike: unknown,
  input: unknown,
  options: RunNodeOptions | undefined,
  counters: Map<string, number>,
  signal: AbortSignal,
  startIndex: number,
): Promise<NodeResult> {
  let child: BaseNode;
  if (typeof nodeLike === 'object' && nodeLike !== null && 'runTry' in nodeLike) child = nodeLike as BaseNode;
  else {
    const key = nodeLike as object;
    child = scope.dynamicNodes.get(key) ?? toNode(nodeLike as never);
    scope.dynamicNodes.set(key, child);
  }
  let runId = options?.runId;
  if (runId === undefined) {
    const n = (counters.get(child.name) ?? 0) + 1;
    counters.set(child.name, n);
    runId = String(n);
  } else if (typeof runId !== 'string' || runId === '') {
    throw new TypeError(`ctx.runNode's runId must be a non-empty string; got ${JSON.stringify(runId)}.`);
  }
  const outcome = await runChild(scope, {
    node: child,
    input,
    path: `${host.path}.${child.name}@${runId}`,
    runId,
    after: startIndex,
    signal,
    forward: (event) => host.emit(event),
  });
  if (outcome.status === 'completed') {
    const result: NodeResult = { output: outcome.output, interruptIds: [] };
    if (outcome.route !== undefined) result.route = outcome.route;
    return result;
  }
  return { output: undefined, interruptIds: outcome.status === 'waiting' ? outcome.interruptIds : [] };
}

/** Pauses the node for a human: an `input` interrupt, which ADK's clients see as an `adk_request_input` call. */
async function raiseRequest(
  host: NodeHost,
  author: string,
  request: RequestInput,
  id: string,
  agentPath: string,
): Promise<void> {
  const args: Record<string, unknown> = { interruptId: id };
  if (request.message !== undefined) args.message = request.message;
  if (request.payload !== undefined) args.payload = request.payload;
  const responseSchema = request.responseSchema ? await toJsonSchema(request.responseSchema) : undefined;
  if (responseSchema) args.response_schema = responseSchema;
  const interrupt: Event['interrupt'] = {
    id,
    kind: 'input',
    agentPath,
    toolCallId: id,
    toolName: REQUEST_INPUT_FUNCTION_CALL_NAME,
    args,
  };
  if (request.message !== undefined) interrupt.message = request.message;
  if (request.payload !== undefined) interrupt.payload = request.payload;
  if (responseSchema) interrupt.responseSchema = responseSchema;
  await host.emit(createEvent({ author, interrupt }));
}

function startEvent(node: BaseNode, path: string, runId: string, attempt: number, input: unknown): Event {
  return createEvent({
    author: node.name,
    nodeInfo: { path, runId, attempt },
    actions: { agentState: record$(input === undefined ? { node: 'started' } : { node: 'started', input }) },
  });
}

function record$(record: NodeRecord): Record<string, unknown> {
  return record;
}

async function checkSchema(
  schema: NonNullable<BaseNode['inputSchema']>,
  value: unknown,
  path: string,
  which: 'input' | 'output',
): Promise<unknown> {
  const result = await validate(schema, value);
  if (!result.ok) throw new NodeSchemaValidationError(path, which, result.message);
  return result.value;
}

/** Errors that end the run as they are: limits, cancellation, storage, guardrails, schemas. */
function mayRetry(error: unknown): boolean {
  return !(
    error instanceof RunLimitError ||
    error instanceof RunCancelledError ||
    error instanceof RunDrainedError ||
    error instanceof GuardrailTrippedError ||
    error instanceof StorageError ||
    error instanceof LeaseLostError ||
    error instanceof NodeSchemaValidationError ||
    error instanceof StateSchemaError ||
    error instanceof NodeFailedError
  );
}

/** Troupe's errors keep their code; anything else (a bug in a node's function) is named by node. */
function passOn(error: unknown, path: string, attempt: number): unknown {
  if (isEventsStopped(error) || error instanceof TroupeError) return error;
  return new NodeFailedError(path, attempt, error);
}

function ignore(): void {}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function isEvent(value: unknown): value is Event {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Event>;
  return (
    typeof v.id === 'string' && typeof v.timestamp === 'number' && typeof v.actions === 'object' && v.actions !== null
  );
}

async function withTimeout(
  work: Promise<void>,
  timeout: number,
  controller: AbortController,
  path: string,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new NodeTimeoutError(path, timeout);
      controller.abort(error);
      reject(error);
    }, timeout);
  });
  // A body that ignores the abort keeps running; what it throws later has no one to go to.
  work.catch(() => undefined);
  try {
    await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
