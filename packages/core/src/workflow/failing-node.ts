import type { NodeInfo } from '../events/event.js';

/** The node run a failure ended: its name and `nodeInfo`, for the error event the runner stores. */
export interface FailingNode {
  name: string;
  info: NodeInfo;
}

const failingNodes = new WeakMap<object, FailingNode>();

/**
 * Remembers the node run whose failure an error is (the deepest one: a node inside a nested
 * workflow fails first, and its parents pass the same error on), so that the run's stored error
 * event names that node, its run and how many tries it made (ADK's `NodeErrorEvent`).
 */
export function recordFailingNode(error: unknown, failing: FailingNode): void {
  if (typeof error === 'object' && error !== null && !failingNodes.has(error)) failingNodes.set(error, failing);
}

/** The node run an error is the failure of, if it came from one. */
export function failingNodeOf(error: unknown): FailingNode | undefined {
  return typeof error === 'object' && error !== null ? failingNodes.get(error) : undefined;
}
