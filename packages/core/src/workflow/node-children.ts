import { runTasks } from '../utils/run-tasks.js';
import type { BaseNode } from './base-node.js';
import type { NodeHost, NodeResult, RunNodeOptions } from './node-context.js';
import { runChild, type ChildRun, type WorkflowScope } from './node-runner.js';
import { node as toNode } from './node.js';

// The runs a running node starts below itself: one per item of a `parallelWorker` node, and
// `ctx.runNode`'s children. Each is a node run like the workflow's own (durable, resumable).

/** A `parallelWorker` node: one child run per item, at most `maxParallelWorkers` at a time. */
export async function runWorkers(
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

/** What one `ctx.runNode` call runs: the child node and its run id. */
export interface DynamicChild {
  node: BaseNode;
  runId: string;
}

/**
 * The child a `ctx.runNode` call names, with its run id: the one given, or the next of the
 * parent's counter for that child's name. Taken when the call is made, so ids follow call order
 * (a resumed parent makes the same calls in the same order and gets each its own recorded run).
 */
export function dynamicChild(
  scope: WorkflowScope,
  nodeLike: unknown,
  options: RunNodeOptions | undefined,
  counters: Map<string, number>,
): DynamicChild {
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
  return { node: child, runId };
}

/** `ctx.runNode`: a child of the running node, durable like the workflow's own nodes. */
export async function runDynamic(
  scope: WorkflowScope,
  host: NodeHost,
  { node: child, runId }: DynamicChild,
  input: unknown,
  signal: AbortSignal,
  startIndex: number,
): Promise<NodeResult> {
  // A cancelled run starts no child, even from code that ignores the signal.
  signal.throwIfAborted();
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
