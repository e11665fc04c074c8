import type { InvocationContext } from '../agents/invocation-context.js';
import { ConfigurationError } from '../errors.js';
import { linkedAbortController } from '../utils/abort.js';
import { WorkflowOutputError } from './errors.js';
import type { WorkflowGraph } from './graph.js';
import type { RunRecord } from './journal.js';
import { runChild, type RunEndListener, type RunOutcome, type WorkflowScope } from './node-runner.js';
import type { StepBudget } from './step-budget.js';

/** A graph run that ended paused: some node waits for a human. */
export const WAITING = Symbol('waiting');

// A node's status in a run, by slot (0: not run yet).
const RUNNING = 1;
const COMPLETED = 2;
const WAITS = 3;
/** Ended without output under `waitForOutput`. */
const IDLE = 4;

/**
 * The schedule of one graph workflow run. Each change of it — a node run starts (its trigger taken,
 * its run id counted), a node run ends (its outgoing edges fire) — happens in the same turn as the
 * event that records it is handed on, so the stored events are a log of the schedule in order. A
 * resumed run replays that log (nothing runs) and then goes on with the runs that were open.
 *
 * Kept in arrays indexed by the nodes' slots (`WorkflowGraph.slots`), not maps by name: a run
 * of a 50-node graph makes a few arrays instead of a hash table change per node run.
 */
class Schedule implements RunEndListener {
  /** The first pending input per slot (the next run's), and how many wait. */
  private readonly firstInput: unknown[];
  private readonly inputCount: Uint32Array;
  /** Pending inputs after the first, per slot, first in first out (made when a second comes). */
  private readonly moreInputs: (unknown[] | undefined)[];
  /**
   * The slots with pending inputs, in the order their queues last became non-empty: the order
   * they start in (what the maps by name this replaced iterated in). A list through `nextReady`
   * and `previousReady` (-1 ends it), so adding and removing a slot allocates nothing.
   */
  readyHead = -1;
  private readyTail = -1;
  readonly nextReady: Int32Array;
  private readonly previousReady: Int32Array;
  readonly status: Uint8Array;
  private readonly outputs: unknown[];
  /** Terminal slots that gave an output, in the order they first did. */
  readonly terminalsWithOutput: number[] = [];
  private readonly terminalOutputs: unknown[];
  /** Runs of each slot so far (the next run id is this + 1). */
  private readonly counters: Uint32Array;
  /** Uses of each edge with `maxIterations`, by edge index (only when the graph has one). */
  private readonly uses: number[] | undefined;
  constructor(
    readonly graph: WorkflowGraph,
    private readonly workflow: string,
    private readonly steps: StepBudget,
  ) {
    const n = graph.slots.length;
    this.firstInput = new Array<unknown>(n);
    this.inputCount = new Uint32Array(n);
    this.moreInputs = new Array<unknown[] | undefined>(n);
    this.nextReady = new Int32Array(n);
    this.previousReady = new Int32Array(n);
    this.status = new Uint8Array(n);
    this.outputs = new Array<unknown>(n);
    this.terminalOutputs = new Array<unknown>(n);
    this.counters = new Uint32Array(n);
    this.uses = graph.countsUses ? [] : undefined;
  }

  seed(input: unknown): void {
    for (const slot of this.graph.startSlots) this.push(slot, input);
  }

  hasInput(slot: number): boolean {
    return this.inputCount[slot]! > 0;
  }

  /** The last slot on the ready list now (-1 when none): a pump starts the slots up to it. */
  get lastReady(): number {
    return this.readyTail;
  }

  /** Takes the next trigger of `slot`: its run id and input. */
  start(slot: number): { runId: string; input: unknown } {
    const input = this.firstInput[slot];
    const left = --this.inputCount[slot]!;
    this.firstInput[slot] = left > 0 ? this.moreInputs[slot]!.shift() : undefined;
    if (left === 0) this.unready(slot);
    // The node's name only for the error: a start reads nothing more than the count.
    if (!this.steps.spend()) throw this.steps.exhausted(this.graph.slots[slot]!.name);
    const run = ++this.counters[slot]!;
    this.status[slot] = RUNNING;
    return { runId: String(run), input };
  }

  runEnded(slot: number, outcome: RunOutcome): void {
    if (outcome.status === 'waiting') {
      this.status[slot] = WAITS;
      return;
    }
    if (outcome.status === 'no-output') {
      this.status[slot] = IDLE;
      return;
    }
    this.status[slot] = COMPLETED;
    const { output, route } = outcome;
    const graph = this.graph;
    if (output !== undefined) {
      this.outputs[slot] = output;
      if (graph.slots[slot]!.terminal) {
        if (!(slot in this.terminalOutputs)) this.terminalsWithOutput.push(slot);
        this.terminalOutputs[slot] = output;
      }
    }
    const targets = graph.fire(slot, route, this.uses);
    for (let i = 0; i < targets.length; i++) {
      const to = targets[i]!;
      const target = graph.slots[to]!;
      if (!target.join) {
        this.push(to, output);
        continue;
      }
      const joined = this.joinedInput(target.predecessors);
      if (joined) this.push(to, joined);
    }
  }

  /** A join's input once all its predecessors completed (their outputs by name), else undefined. */
  private joinedInput(predecessors: readonly number[]): Record<string, unknown> | undefined {
    for (let i = 0; i < predecessors.length; i++) if (this.status[predecessors[i]!] !== COMPLETED) return undefined;
    const joined: Record<string, unknown> = {};
    for (let i = 0; i < predecessors.length; i++) {
      const p = predecessors[i]!;
      joined[this.graph.slots[p]!.name] = this.outputs[p];
    }
    return joined;
  }

  terminalOutput(slot: number): unknown {
    return this.terminalOutputs[slot];
  }

  private push(slot: number, input: unknown): void {
    const count = this.inputCount[slot]!;
    this.inputCount[slot] = count + 1;
    if (count > 0) {
      (this.moreInputs[slot] ??= []).push(input);
      return;
    }
    this.firstInput[slot] = input;
    // On the list's end.
    this.nextReady[slot] = -1;
    this.previousReady[slot] = this.readyTail;
    if (this.readyTail === -1) this.readyHead = slot;
    else this.nextReady[this.readyTail] = slot;
    this.readyTail = slot;
  }

  private unready(slot: number): void {
    const previous = this.previousReady[slot]!;
    const next = this.nextReady[slot]!;
    if (previous === -1) this.readyHead = next;
    else this.nextReady[previous] = next;
    if (next === -1) this.readyTail = previous;
    else this.previousReady[next] = previous;
  }

  /** Replays one start from the log; the log must fit this graph. */
  replayStart(record: RunRecord, slot: number): unknown {
    if (!this.hasInput(slot) || String(this.counters[slot]! + 1) !== record.runId)
      throw new ConfigurationError(
        `Workflow '${this.workflow}' cannot resume: the session shows node '${this.graph.slots[slot]!.name}' run ${record.runId} starting where this workflow's graph would not start it. The workflow's edges changed since the run paused; resume it with the graph it ran with, or start a new turn (runConfig.abandonInterrupts).`,
      );
    return this.start(slot).input;
  }
}

/** Runs a graph workflow to its end or its pause; resolves with its output. */
export async function runGraph(
  scope: WorkflowScope,
  graph: WorkflowGraph,
  input: unknown,
  maxConcurrency: number | undefined,
): Promise<{ output: unknown } | typeof WAITING> {
  const schedule = new Schedule(graph, scope.workflow, scope.steps);
  schedule.seed(input);
  const prefix = `${scope.path}.`;
  // Runs that were open when the run paused or stopped, with their inputs, in the order they started.
  const open = new Map<number, { record: RunRecord; input: unknown }>();
  for (const step of scope.journal?.schedule ?? []) {
    const slot = graph.slotOf.get(step.record.path.slice(prefix.length));
    if (slot === undefined) continue;
    if (step.kind === 'start') open.set(slot, { record: step.record, input: schedule.replayStart(step.record, slot) });
    else {
      open.delete(slot);
      const outcome: RunOutcome = step.record.endedWaiting
        ? { status: 'no-output' }
        : { status: 'completed', output: step.record.output, route: step.record.route };
      schedule.runEnded(slot, outcome);
    }
  }
  const run = new GraphRun(scope, schedule, maxConcurrency);
  try {
    for (const [slot, { record, input: nodeInput }] of open) run.reopen(slot, record.runId, nodeInput);
    run.pump();
    await run.done;
  } finally {
    run.controller.dispose();
  }
  if (run.failure) throw run.failure.error;
  if (schedule.status.includes(WAITS)) return WAITING;
  const terminals = schedule.terminalsWithOutput;
  if (terminals.length > 1)
    throw new WorkflowOutputError(
      scope.workflow,
      terminals.map((slot) => graph.slots[slot]!.name),
    );
  return { output: terminals.length === 1 ? schedule.terminalOutput(terminals[0]!) : undefined };
}

/** The node runs of one graph run under way: started as their triggers come, stopped on a failure. */
class GraphRun {
  readonly controller: AbortController & { dispose(): void };
  /** The workflow's context with the run's abort signal: one for all its node runs. */
  private readonly ctx: InvocationContext;
  readonly done: Promise<void>;
  failure: { error: unknown } | undefined;
  private finished!: () => void;
  private readonly running: Uint8Array;
  private runningCount = 0;
  private readonly paths: readonly string[];
  private readonly after: number;
  /** Runs a resume reopens, in the order they first started; they start before new ones, within maxConcurrency. */
  private reopened: { slot: number; runId: string; input: unknown }[] | undefined;

  constructor(
    private readonly scope: WorkflowScope,
    private readonly schedule: Schedule,
    private readonly maxConcurrency: number | undefined,
  ) {
    this.controller = linkedAbortController(scope.ctx.abortSignal, { manyListeners: true });
    this.ctx = scope.ctx.with({ abortSignal: this.controller.signal });
    this.done = new Promise<void>((resolve) => (this.finished = resolve));
    this.running = new Uint8Array(schedule.graph.slots.length);
    this.paths = schedule.graph.pathsUnder(scope.path);
    this.after = (scope.ctx.resumeFrom ?? 0) - 1;
  }

  /**
   * Starts every node with a trigger that can run now; settles `done` once nothing runs. Called
   * again as each run still running ends, so a run's successors start in the turn its end is taken.
   */
  pump(): void {
    if (!this.failure) {
      try {
        // Cancellation stops the workflow here, at a node boundary (running nodes get the abort).
        this.scope.ctx.throwIfAborted();
        // A pass that ended runs in its own turn may have made their successors ready: another pass.
        while (this.startReady()) this.scope.ctx.throwIfAborted();
      } catch (error) {
        this.fail(error);
      }
    }
    if (this.runningCount === 0) this.finished();
  }

  /** A run that was open when the run paused or stopped: started again by the next pass. */
  reopen(slot: number, runId: string, input: unknown): void {
    (this.reopened ??= []).push({ slot, runId, input });
  }

  /**
   * Starts the reopened runs, then the slots ready now, up to the list's end as it is: a run that
   * ends while they start adds its successors after it, for the next pass. True when a run ended
   * in this pass.
   */
  private startReady(): boolean {
    const { schedule } = this;
    let endedNow = false;
    const reopened = this.reopened;
    while (reopened && reopened.length > 0) {
      if (this.maxConcurrency !== undefined && this.runningCount >= this.maxConcurrency) return endedNow;
      const { slot, runId, input } = reopened.shift()!;
      if (this.launch(slot, runId, input)) endedNow = true;
    }
    const last = schedule.lastReady;
    let slot = schedule.readyHead;
    while (slot !== -1) {
      // Read before the slot starts (which may take it off the list).
      const next = schedule.nextReady[slot]!;
      if (this.running[slot] !== 1 && schedule.status[slot] !== WAITS) {
        if (this.maxConcurrency !== undefined && this.runningCount >= this.maxConcurrency) break;
        const { runId, input } = schedule.start(slot);
        if (this.launch(slot, runId, input)) endedNow = true;
      }
      if (slot === last) break;
      slot = next;
    }
    return endedNow;
  }

  /**
   * Starts one run. True when it ended in this turn: its node returned at once and the store took
   * its end record at once (most function nodes, on the in-memory store), so no promise waits for it.
   */
  launch(slot: number, runId: string, input: unknown): boolean {
    const task = runChild(this.scope, {
      node: this.schedule.graph.slots[slot]!.node,
      input,
      path: this.paths[slot]!,
      runId,
      after: this.after,
      signal: this.controller.signal,
      ctx: this.ctx,
      forward: this.scope.sink,
      onEnd: this.schedule,
      slot,
    });
    if (!(task instanceof Promise)) {
      // A pause has no end record: the run stays open, and resumes when answered.
      if (task.status === 'waiting') this.schedule.runEnded(slot, task);
      return true;
    }
    // Counted once it is under way (a run that throws as it starts never was).
    this.running[slot] = 1;
    this.runningCount += 1;
    task.then(
      (outcome) => {
        if (outcome.status === 'waiting') this.schedule.runEnded(slot, outcome);
        this.stopped(slot);
      },
      (error: unknown) => {
        this.fail(error);
        this.stopped(slot);
      },
    );
    return false;
  }

  private stopped(slot: number): void {
    this.running[slot] = 0;
    this.runningCount -= 1;
    this.pump();
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    // Nothing is left running behind the workflow: the others are stopped and awaited.
    this.failure = { error };
    this.controller.abort(error);
  }
}
