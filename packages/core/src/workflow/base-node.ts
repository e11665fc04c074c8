import { ConfigurationError } from '../errors.js';
import type { Schema } from '../utils/schema.js';
import type { NodeContext } from './node-context.js';
import { resolveRetry, type ResolvedRetry, type RetryConfig } from './retry-config.js';

/** Options every workflow node takes (ADK's `BaseNodeConfig`; `timeout` in milliseconds). */
export interface BaseNodeConfig {
  /** Unique in its workflow; a JavaScript identifier. */
  name: string;
  /** What the node does (shown when the node is a tool). */
  description?: string;
  /**
   * When the run resumes after this node asked for input, run the node again (it reads the answer
   * from `ctx.resumeInputs`) instead of taking the answer as its output. @default false
   */
  rerunOnResume?: boolean;
  /**
   * A run that ends with no output and no route leaves the node waiting instead of completed: it
   * does not trigger the nodes after it, and runs again on its next trigger. @default false
   */
  waitForOutput?: boolean;
  /** Retry failed tries. Unset: one try. */
  retryConfig?: RetryConfig;
  /** Milliseconds one try may take; a try that takes longer is aborted and counts as failed. */
  timeout?: number;
  /** Checked against the node's input before it runs. */
  inputSchema?: Schema;
  /** Checked against the node's output before it goes on. */
  outputSchema?: Schema;
  /** Run the node once per item of an array input (at most `maxParallelWorkers` at a time); its output is the results, in input order. */
  parallelWorker?: boolean;
  /** With `parallelWorker`: how many items run at once. @default all */
  maxParallelWorkers?: number;
}

/** What a node's {@link BaseNode.runImpl} may yield: events, values (its output), `RequestInput`. */
export type NodeYield = unknown;

const NODE_BRAND = Symbol.for('troupe.workflowNode');

/**
 * A step of a graph workflow. Subclasses implement {@link runImpl}, an async generator that yields
 * events (passed on), a `RequestInput` (the run pauses for a human), or plain values (the last
 * one is the node's output). Use {@link node} to make one from a function, agent or tool.
 */
export abstract class BaseNode {
  readonly name: string;
  readonly description: string;
  readonly rerunOnResume: boolean;
  readonly waitForOutput: boolean;
  readonly retryConfig: RetryConfig | undefined;
  /** Milliseconds. */
  readonly timeout: number | undefined;
  readonly inputSchema: Schema | undefined;
  readonly outputSchema: Schema | undefined;
  readonly parallelWorker: boolean;
  readonly maxParallelWorkers: number | undefined;
  /** @internal */
  readonly retry: ResolvedRetry | undefined;

  constructor(config: BaseNodeConfig) {
    if (typeof config !== 'object' || config === null)
      throw new ConfigurationError(
        `A workflow node needs a config object such as { name: 'classify' }; got ${String(config)}.`,
      );
    checkNodeName(config.name);
    this.name = config.name;
    this.description = config.description ?? '';
    this.rerunOnResume = config.rerunOnResume ?? false;
    this.waitForOutput = config.waitForOutput ?? false;
    this.retryConfig = config.retryConfig;
    this.retry = resolveRetry(config.name, config.retryConfig);
    const timeout = config.timeout;
    if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)))
      throw new ConfigurationError(
        `Workflow node '${config.name}' has timeout ${JSON.stringify(timeout)}; use a number of milliseconds above 0, or leave it unset.`,
      );
    this.timeout = timeout;
    this.inputSchema = config.inputSchema;
    this.outputSchema = config.outputSchema;
    this.parallelWorker = config.parallelWorker ?? false;
    const max = config.maxParallelWorkers;
    if (max !== undefined && (!Number.isInteger(max) || max < 1))
      throw new ConfigurationError(
        `Workflow node '${config.name}' has maxParallelWorkers ${JSON.stringify(max)}; use a whole number of at least 1, or leave it unset to run every item at once.`,
      );
    if (max !== undefined && !this.parallelWorker)
      throw new ConfigurationError(
        `Workflow node '${config.name}' has maxParallelWorkers but not parallelWorker: true; add parallelWorker: true, or drop maxParallelWorkers.`,
      );
    this.maxParallelWorkers = max;
  }

  /** True for a node that waits for every incoming branch before it runs (JoinNode). */
  get requiresAllPredecessors(): boolean {
    return false;
  }

  /** The node's work: yield events, a `RequestInput`, or values (the last value is its output). */
  protected abstract runImpl(ctx: NodeContext, input: unknown): AsyncIterable<NodeYield> | Iterable<NodeYield>;

  /** Runs {@link runImpl}. The engine calls it once per try. @internal */
  runTry(ctx: NodeContext, input: unknown): AsyncIterable<NodeYield> | Iterable<NodeYield> {
    return this.runImpl(ctx, input);
  }

  /** The options this node was made with, to make a copy with some changed (see {@link node}). @internal */
  baseConfig(): BaseNodeConfig {
    const config: BaseNodeConfig = { name: this.name, description: this.description };
    if (this.rerunOnResume) config.rerunOnResume = true;
    if (this.waitForOutput) config.waitForOutput = true;
    if (this.retryConfig !== undefined) config.retryConfig = this.retryConfig;
    if (this.timeout !== undefined) config.timeout = this.timeout;
    if (this.inputSchema !== undefined) config.inputSchema = this.inputSchema;
    if (this.outputSchema !== undefined) config.outputSchema = this.outputSchema;
    if (this.parallelWorker) config.parallelWorker = true;
    if (this.maxParallelWorkers !== undefined) config.maxParallelWorkers = this.maxParallelWorkers;
    return config;
  }
}

Object.defineProperty(BaseNode.prototype, NODE_BRAND, { value: true });

/** True for a workflow node made by any copy of @troupe/core. */
export function isBaseNode(value: unknown): value is BaseNode {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[NODE_BRAND] === true;
}

/** Node names follow agent names' rules: they are event authors, and paths are built from them. */
function checkNodeName(name: unknown): void {
  if (name === 'START' || name === '__START__')
    throw new ConfigurationError(
      `'${String(name)}' is the workflow's entry point and cannot name a node; rename the node.`,
    );
  if (typeof name !== 'string' || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || name === 'user')
    throw new ConfigurationError(
      `Workflow node name ${JSON.stringify(name)} is not valid: use letters, digits, '_' or '$', not starting with a digit, and not 'user' (e.g. 'classify'). A function node is named after its function; give an arrow function one with node(fn, { name }).`,
    );
}
