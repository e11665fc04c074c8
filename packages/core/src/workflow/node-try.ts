import { EventsStopped, TAKEN } from '../agents/event-sink.js';
import { createEvent, createNodeRecordEvent, type Event, type Route } from '../events/event.js';
import { linkedAbortController } from '../utils/abort.js';
import { toJsonSchema, validate } from '../utils/schema.js';
import type { BaseNode, NodeYield } from './base-node.js';
import { NodeSchemaValidationError, NodeTimeoutError } from './errors.js';
import type { NodeRecord } from './journal.js';
import { dynamicChild, runDynamic, runWorkers, type DynamicChild } from './node-children.js';
import { NodeContext, type NodeHost, type NodeResult, type RunNodeOptions } from './node-context.js';
import type { ChildRun, PendingStart, RunOutcome, WorkflowScope } from './node-runner.js';
import { isRequestInput, REQUEST_INPUT_FUNCTION_CALL_NAME, type RequestInput } from './request-input.js';

/**
 * One try of a node run, and the engine's side of its context (`NodeHost`). A class rather than
 * closures: most nodes are small, and a try's closures and their context were most of what a
 * node run allocated.
 */
export class NodeTry implements NodeHost {
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
  /** The last run id `ctx.runNode` numbered, by child name; made on the first call. */
  private childRuns: Map<string, number> | undefined;
  /** The start record while it is being stored (after {@link started} handed it on). */
  private startStoring: Promise<void> | undefined;
  /** This try's `ctx.runNode` runs by child name and run id; made on the first call. */
  private dynamicRuns: Map<string, Promise<NodeResult>> | undefined;
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
    let target: DynamicChild;
    try {
      target = dynamicChild(this.scope, nodeLike, options, (this.childRuns ??= new Map()));
    } catch (error) {
      return Promise.reject(error);
    }
    // A run id names one run: a second call with it gets that run, never a second one.
    const key = `${target.node.name}@${target.runId}`;
    const runs = (this.dynamicRuns ??= new Map());
    const known = runs.get(key);
    if (known) return known;
    let result: Promise<NodeResult>;
    try {
      if (!this.scope.steps.spend()) throw this.scope.steps.exhausted(target.node.name);
      // The child's records come after this run's start; calls made while it is being stored run
      // once it is, in call order.
      const starting = this.started() ?? this.startStoring;
      const run = (): Promise<NodeResult> => runDynamic(this.scope, this, target, input, this.signal, this.startIndex);
      result = starting && starting !== TAKEN ? starting.then(run) : run();
    } catch (error) {
      result = Promise.reject(error);
    }
    runs.set(key, result);
    return result;
  }

  /**
   * Runs the try. Throws at once what the node throws at once. A node with no schema, timeout or
   * workers whose one item is ready (a function that returns, a join) ends here, in this turn, and
   * when the store took its end record in this turn too, its outcome comes back as a value.
   */
  run(): RunOutcome | Promise<RunOutcome> {
    const { node } = this.child;
    if (node.inputSchema || node.parallelWorker || this.controller || node.outputSchema) return this.runAsync();
    let items: AsyncIterable<NodeYield> | Iterable<NodeYield>;
    try {
      items = node.runTry(this.nodeCtx, this.child.input);
    } catch (error) {
      // Ended by its throw: what it set going and emits later is refused, as after any try.
      this.closed = true;
      throw error;
    }
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
  private finish(): RunOutcome | Promise<RunOutcome> {
    this.closed = true;
    const { node } = this.child;
    if (this.child.signal.aborted) throw this.child.signal.reason;
    if (this.interrupts) return { status: 'waiting', interruptIds: this.interrupts };
    const output = this.output;
    if (node.outputSchema && output !== undefined)
      return checkSchema(node.outputSchema, output, this.path, 'output').then((checked) => this.ended(checked));
    return this.ended(output);
  }

  private ended(output: unknown): RunOutcome | Promise<RunOutcome> {
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
    const storing = child.forward(startEvent(child.node, child.path, child.runId, this.attempt, child.input));
    if (storing !== TAKEN) {
      this.startStoring = storing;
      const done = (): void => {
        if (this.startStoring === storing) this.startStoring = undefined;
      };
      storing.then(done, done);
    }
    return storing;
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

/**
 * Hands on the run's end record (with its last state writes), then tells the schedule, in one turn.
 * The outcome as a value when the record was taken in this turn (see {@link TAKEN}).
 */
export function end(
  run: ChildRun,
  attempt: number,
  outcome: RunOutcome,
  nodeCtx: NodeContext | undefined,
  alone = false,
): RunOutcome | Promise<RunOutcome> {
  const record: NodeRecord & { node: 'ended' } = { node: 'ended' };
  if (outcome.status === 'no-output') record.waiting = true;
  if (alone) {
    record.alone = true;
    if (run.input !== undefined) record.input = run.input;
  }
  const completed = outcome.status === 'completed';
  const event = createNodeRecordEvent(
    run.node.name,
    { path: run.path, runId: run.runId, attempt },
    record$(record),
    completed ? outcome.output : undefined,
    completed ? outcome.route : undefined,
  );
  nodeCtx?.applyTo(event.actions);
  // Handed on first: a record refused at once (a state write the stateSchema refuses) throws here,
  // before the schedule hears of an end that was never stored and starts the node's successors.
  const taken = run.forward(event);
  run.onEnd?.runEnded(run.slot!, outcome);
  return taken === TAKEN ? outcome : taken.then(() => outcome);
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

export function startEvent(node: BaseNode, path: string, runId: string, attempt: number, input: unknown): Event {
  const record = record$(input === undefined ? { node: 'started' } : { node: 'started', input });
  return createNodeRecordEvent(node.name, { path, runId, attempt }, record, undefined, undefined);
}

export function record$(record: NodeRecord): Record<string, unknown> {
  return record;
}

export async function checkSchema(
  schema: NonNullable<BaseNode['inputSchema']>,
  value: unknown,
  path: string,
  which: 'input' | 'output',
): Promise<unknown> {
  const result = await validate(schema, value);
  if (!result.ok) throw new NodeSchemaValidationError(path, which, result.message);
  return result.value;
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
