import { ConfigurationError, RunLimitError } from '../errors.js';
import { linkedAbortController } from '../utils/abort.js';
import { WorkflowOutputError } from './errors.js';
import { START, type WorkflowGraph } from './graph.js';
import type { RunRecord } from './journal.js';
import { runChild, type RunOutcome, type WorkflowScope } from './node-runner.js';

/** A graph run that ended paused: some node waits for a human. */
export const WAITING = Symbol('waiting');

type NodeStatus = 'running' | 'completed' | 'waiting' | 'idle';

/**
 * The schedule of one graph workflow run. Each change of it — a node run starts (its trigger taken,
 * its run id counted), a node run ends (its outgoing edges fire) — happens in the same turn as the
 * event that records it is handed on, so the stored events are a log of the schedule in order. A
 * resumed run replays that log (nothing runs) and then goes on with the runs that were open.
 */
class Schedule {
  /** Pending inputs per node, first in first out; a node runs one at a time (ADK). */
  readonly triggers = new Map<string, unknown[]>();
  readonly status = new Map<string, NodeStatus>();
  readonly outputs = new Map<string, unknown>();
  readonly terminalOutputs = new Map<string, unknown>();
  private readonly counters = new Map<string, number>();
  private readonly uses = new Map<number, number>();
  steps = 0;

  constructor(
    private readonly graph: WorkflowGraph,
    private readonly workflow: string,
    private readonly maxSteps: number,
  ) {}

  seed(input: unknown): void {
    for (const edge of this.graph.edgesFrom(START)) this.push(edge.to, input);
  }

  /** Takes the next trigger of `name`: its run id and input. */
  start(name: string): { runId: string; input: unknown } {
    const queue = this.triggers.get(name)!;
    const input = queue.shift();
    if (queue.length === 0) this.triggers.delete(name);
    this.steps += 1;
    if (this.steps > this.maxSteps)
      throw new RunLimitError(
        'maxSteps',
        `Workflow '${this.workflow}' ran ${this.maxSteps} nodes (its maxSteps) and was stopped before running '${name}' again. Raise maxSteps, or give the cycle an exit (a route, or maxIterations on its back-edge).`,
      );
    const runId = String((this.counters.get(name) ?? 0) + 1);
    this.counters.set(name, Number(runId));
    this.status.set(name, 'running');
    return { runId, input };
  }

  end(name: string, outcome: RunOutcome): void {
    if (outcome.status === 'waiting') {
      this.status.set(name, 'waiting');
      return;
    }
    if (outcome.status === 'no-output') {
      this.status.set(name, 'idle');
      return;
    }
    this.status.set(name, 'completed');
    const { output, route } = outcome;
    if (output !== undefined) this.outputs.set(name, output);
    if (this.graph.terminals.has(name) && output !== undefined) this.terminalOutputs.set(name, output);
    for (const edge of this.graph.next(name, route, this.uses)) {
      if (edge.maxIterations !== undefined) this.uses.set(edge.index, (this.uses.get(edge.index) ?? 0) + 1);
      const target = this.graph.nodes.get(edge.to)!;
      if (!target.requiresAllPredecessors) {
        this.push(edge.to, output);
        continue;
      }
      const predecessors = this.graph.predecessors(edge.to);
      if (predecessors.every((p) => this.status.get(p) === 'completed')) {
        const joined: Record<string, unknown> = {};
        for (const p of predecessors) joined[p] = this.outputs.get(p);
        this.push(edge.to, joined);
      }
    }
  }

  private push(name: string, input: unknown): void {
    const queue = this.triggers.get(name);
    if (queue) queue.push(input);
    else this.triggers.set(name, [input]);
  }

  /** Replays one start from the log; the log must fit this graph. */
  replayStart(record: RunRecord, name: string): unknown {
    if (!this.triggers.get(name)?.length || String((this.counters.get(name) ?? 0) + 1) !== record.runId)
      throw new ConfigurationError(
        `Workflow '${this.workflow}' cannot resume: the session shows node '${name}' run ${record.runId} starting where this workflow's graph would not start it. The workflow's edges changed since the run paused; resume it with the graph it ran with, or start a new turn (runConfig.abandonInterrupts).`,
      );
    return this.start(name).input;
  }
}

/** Runs a graph workflow to its end or its pause; resolves with its output. */
export async function runGraph(
  scope: WorkflowScope,
  graph: WorkflowGraph,
  input: unknown,
  limits: { maxConcurrency: number | undefined; maxSteps: number },
): Promise<{ output: unknown } | typeof WAITING> {
  const schedule = new Schedule(graph, scope.workflow, limits.maxSteps);
  schedule.seed(input);
  const prefix = `${scope.path}.`;
  // Runs that were open when the run paused or stopped, with their inputs, in the order they started.
  const open = new Map<string, { record: RunRecord; input: unknown }>();
  for (const step of scope.journal?.schedule ?? []) {
    const name = step.record.path.slice(prefix.length);
    if (!graph.nodes.has(name)) continue;
    if (step.kind === 'start') open.set(name, { record: step.record, input: schedule.replayStart(step.record, name) });
    else {
      open.delete(name);
      const outcome: RunOutcome = step.record.endedWaiting
        ? { status: 'no-output' }
        : { status: 'completed', output: step.record.output, route: step.record.route };
      schedule.end(name, outcome);
    }
  }
  const controller = linkedAbortController(scope.ctx.abortSignal, { manyListeners: true });
  const running = new Map<string, Promise<void>>();
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const launch = (name: string, runId: string, nodeInput: unknown): void => {
    const task = runChild(scope, {
      node: graph.nodes.get(name)!,
      input: nodeInput,
      path: `${scope.path}.${name}`,
      runId,
      after: (scope.ctx.resumeFrom ?? 0) - 1,
      signal: controller.signal,
      forward: scope.sink,
      onEnd: (outcome) => schedule.end(name, outcome),
    }).then(
      (outcome) => {
        // A pause has no end record: the run stays open, and resumes when answered.
        if (outcome.status === 'waiting') schedule.end(name, outcome);
        running.delete(name);
        wake?.();
      },
      (error: unknown) => {
        running.delete(name);
        if (!failure) {
          failure = { error };
          controller.abort(error);
        }
        wake?.();
      },
    );
    running.set(name, task);
  };
  try {
    for (const [name, { record, input: nodeInput }] of open) launch(name, record.runId, nodeInput);
    for (;;) {
      if (!failure) {
        try {
          // Cancellation stops the workflow here, at a node boundary (running nodes get the abort).
          scope.ctx.throwIfAborted();
          for (const name of [...schedule.triggers.keys()]) {
            if (running.has(name) || schedule.status.get(name) === 'waiting') continue;
            if (limits.maxConcurrency !== undefined && running.size >= limits.maxConcurrency) break;
            const { runId, input: nodeInput } = schedule.start(name);
            launch(name, runId, nodeInput);
          }
        } catch (error) {
          // Nothing is left running behind the workflow: the others are stopped and awaited.
          failure = { error };
          controller.abort(error);
        }
      }
      if (running.size === 0) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    controller.dispose();
  }
  if (failure) throw failure.error;
  for (const status of schedule.status.values()) if (status === 'waiting') return WAITING;
  const terminals = [...schedule.terminalOutputs.keys()];
  if (terminals.length > 1) throw new WorkflowOutputError(scope.workflow, terminals);
  return { output: terminals.length === 1 ? schedule.terminalOutputs.get(terminals[0]!) : undefined };
}
