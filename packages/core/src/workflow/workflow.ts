import type { AgentKind, AgentOutline } from '../agents/agent-outline.js';
import { BaseAgent, type AgentCallback } from '../agents/base-agent.js';
import { generatorOf, type EventSink } from '../agents/event-sink.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { contentText } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import type { OneOrMany } from '../runner/plugin-manager.js';
import type { BaseTool } from '../tools/base-tool.js';
import { validate, type Schema } from '../utils/schema.js';
import { buildGraph } from './build.js';
import { NodeSchemaValidationError } from './errors.js';
import { FunctionNode } from './function-node.js';
import { runGraph, WAITING } from './graph-run.js';
import type { EdgeItem, WorkflowGraph } from './graph.js';
import { Journal } from './journal.js';
import type { NodeContext } from './node-context.js';
import { runChild, type WorkflowScope } from './node-runner.js';
import { prepareStateCheck } from './state-check.js';
import { StepBudget } from './step-budget.js';
import { ToolNode } from './tool-node.js';

/** A workflow driven by code instead of edges: it runs nodes with `ctx.runNode` and returns the output. */
export type DynamicEntry = (ctx: NodeContext, input: unknown) => unknown;

/** Options of {@link Workflow} (ADK's `WorkflowConfig`, plus Troupe's `stateSchema` and `maxSteps`). */
export interface WorkflowConfig {
  /** A JavaScript identifier, unique in the agent tree. */
  name: string;
  description?: string;
  /** The graph: chains `['START', a, [b, c], d]`, route maps `[from, { ROUTE: to }]` and edges `{ fromNode, toNode, route?, maxIterations? }`. */
  edges?: readonly EdgeItem[];
  /** Instead of `edges`: a function that runs nodes with `ctx.runNode` and returns the workflow's output. */
  dynamicEntry?: DynamicEntry;
  /** How many nodes run at once. @default unlimited */
  maxConcurrency?: number;
  /** Checked on every state write by any node; a write it refuses fails the run and stores nothing. */
  stateSchema?: Schema;
  /** Node runs allowed in one workflow run; past it the run ends with status `limit` (stopReason `maxSteps`). @default 1000 */
  maxSteps?: number;
  /** Checked against the workflow's input (what START's nodes get). */
  inputSchema?: Schema;
  /** Checked against the workflow's output. */
  outputSchema?: Schema;
  beforeAgentCallback?: OneOrMany<AgentCallback>;
  afterAgentCallback?: OneOrMany<AgentCallback>;
}

const DEFAULT_MAX_STEPS = 1000;

/**
 * A graph workflow (ADK 2.0's `Workflow`): nodes — functions, agents, tools, other workflows —
 * joined by edges, routes and back-edges. A node's output is the next node's input; a node's
 * route picks its outgoing edges. It is an agent: the root of a Runner, a sub-agent, a step of a
 * SequentialAgent, an `AgentTool`, a queued run. Every node run is recorded on its events, so a
 * resumed run (after a pause, a crash, in another process) continues at the nodes that were open,
 * and no finished node runs again.
 *
 * @example
 * const triage = new Workflow({
 *   name: 'triage',
 *   edges: [
 *     ['START', classify, { bug: fileBug, question: answer, [DEFAULT_ROUTE]: escalate }],
 *   ],
 * });
 * const runner = new InMemoryRunner({ agent: triage });
 */
export class Workflow extends BaseAgent {
  readonly config: WorkflowConfig;
  readonly graph: WorkflowGraph | undefined;
  readonly dynamicEntry: DynamicEntry | undefined;
  readonly maxConcurrency: number | undefined;
  readonly stateSchema: Schema | undefined;
  readonly maxSteps: number;
  override readonly inputSchema: Schema | undefined;
  override readonly outputSchema: Schema | undefined;
  private readonly entryNode: FunctionNode | undefined;

  constructor(config: WorkflowConfig) {
    if (typeof config !== 'object' || config === null)
      throw new ConfigurationError(
        `Workflow needs a config such as { name: 'triage', edges: [...] }; got ${String(config)}.`,
      );
    const name = config.name;
    if (config.edges !== undefined && config.dynamicEntry !== undefined)
      throw new ConfigurationError(
        `Workflow '${name}' has both edges and dynamicEntry; a workflow is driven by one of them. Drop one.`,
      );
    if (config.edges === undefined && config.dynamicEntry === undefined)
      throw new ConfigurationError(
        `Workflow '${name}' needs edges (e.g. [['START', first, second]]) or a dynamicEntry function.`,
      );
    if (config.dynamicEntry !== undefined && typeof config.dynamicEntry !== 'function')
      throw new ConfigurationError(
        `Workflow '${name}' has a dynamicEntry that is not a function; pass (ctx, input) => output.`,
      );
    const built = config.edges !== undefined ? buildGraph(String(name), config.edges) : undefined;
    super({
      name,
      ...(config.description !== undefined ? { description: config.description } : {}),
      subAgents: built?.agents ?? [],
      ...(config.beforeAgentCallback !== undefined ? { beforeAgentCallback: config.beforeAgentCallback } : {}),
      ...(config.afterAgentCallback !== undefined ? { afterAgentCallback: config.afterAgentCallback } : {}),
    });
    const count = (field: 'maxConcurrency' | 'maxSteps'): number | undefined => {
      const value = config[field];
      if (value !== undefined && (!Number.isInteger(value) || value < 1))
        throw new ConfigurationError(
          `Workflow '${name}' has ${field} ${JSON.stringify(value)}; use a whole number of at least 1${field === 'maxConcurrency' ? ', or leave it unset to run every ready node at once' : ''}.`,
        );
      return value;
    };
    this.config = config;
    this.graph = built?.graph;
    this.dynamicEntry = config.dynamicEntry;
    this.entryNode = config.dynamicEntry ? new FunctionNode(name, config.dynamicEntry) : undefined;
    this.maxConcurrency = count('maxConcurrency');
    this.maxSteps = count('maxSteps') ?? DEFAULT_MAX_STEPS;
    this.stateSchema = config.stateSchema;
    this.inputSchema = config.inputSchema;
    this.outputSchema = config.outputSchema;
  }

  override get kind(): AgentKind {
    return 'workflow';
  }

  override get resumable(): boolean {
    return true;
  }

  override outline(): AgentOutline {
    const tools: BaseTool[] = [];
    for (const n of this.graph?.nodes.values() ?? []) if (n instanceof ToolNode) tools.push(n.tool);
    return { children: this.subAgents, tools };
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runWorkflow(ctx, sink));
  }

  protected override runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsyncImpl !== Workflow.prototype.runAsyncImpl) return super.runImplInto(ctx, sink);
    return this.runWorkflow(ctx, sink);
  }

  private async runWorkflow(ctx: InvocationContext, sink: EventSink): Promise<void> {
    const site = ctx.workflowNode?.agent === this ? ctx.workflowNode : undefined;
    const path = site?.path ?? this.name;
    const journal =
      ctx.resumeFrom !== undefined
        ? new Journal(ctx.session.events, ctx.resumeFrom, ctx.invocationId, path, this.name)
        : undefined;
    if (journal?.workflowEnded) return;
    let input = site ? site.input : startInput(ctx);
    if (this.inputSchema) {
      const checked = await validate(this.inputSchema, input);
      if (!checked.ok) throw new NodeSchemaValidationError(path, 'input', checked.message);
      input = checked.value;
    }
    const check = this.stateSchema ? await prepareStateCheck(this.stateSchema) : undefined;
    const scope: WorkflowScope = {
      workflow: this.name,
      path,
      ctx,
      sink: check
        ? (event) => {
            check(event);
            return sink(event);
          }
        : sink,
      journal,
      dynamicNodes: new WeakMap(),
      steps: new StepBudget(this.name, this.maxSteps),
    };
    let output: unknown;
    if (this.entryNode) {
      const outcome = await runChild(scope, {
        node: this.entryNode,
        input,
        path,
        runId: '1',
        after: (ctx.resumeFrom ?? 0) - 1,
        childrenAfter: ctx.resumeFrom === undefined ? undefined : ctx.resumeFrom - 1,
        signal: ctx.abortSignal,
        forward: scope.sink,
      });
      if (outcome.status === 'waiting') return;
      output = outcome.status === 'completed' ? outcome.output : undefined;
    } else {
      const result = await runGraph(scope, this.graph!, input, this.maxConcurrency);
      if (result === WAITING) return;
      output = result.output;
    }
    if (this.outputSchema && output !== undefined) {
      const checked = await validate(this.outputSchema, output);
      if (!checked.ok) throw new NodeSchemaValidationError(path, 'output', checked.message);
      output = checked.value;
    }
    const end = createEvent({
      nodeInfo: { path },
      actions: { agentState: { workflow: 'ended' }, endOfAgent: true },
    });
    if (output !== undefined) end.output = output;
    await sink(end);
  }
}

/**
 * What START's nodes get: the message's text when it is text only, the `Content` otherwise, or
 * the structured input of a run given one.
 */
function startInput(ctx: InvocationContext): unknown {
  const content = ctx.userContent;
  const textOnly =
    content !== undefined && content.parts.length > 0 && content.parts.every((p) => 'text' in p && !p.thought);
  const input = ctx.input;
  const keys = Object.keys(input);
  if (textOnly) {
    const text = contentText(content);
    // A text message stands for { request: text }; any other input object is a structured input.
    if (keys.length === 1 && keys[0] === 'request' && input.request === text) return text;
    return input;
  }
  if (content === undefined || content.parts.length === 0) return keys.length > 0 ? input : undefined;
  return content;
}

/**
 * The agent form of a {@link Workflow} (ADK's `WorkflowAgent`): the same thing under the name ADK
 * code uses. Built from a config, or from a workflow, whose place it takes (the workflow's agents
 * become its sub-agents; do not use that workflow elsewhere).
 */
export class WorkflowAgent extends Workflow {
  constructor(workflowOrConfig: Workflow | WorkflowConfig) {
    if (workflowOrConfig instanceof Workflow) {
      if (workflowOrConfig.parentAgent)
        throw new ConfigurationError(
          `Workflow '${workflowOrConfig.name}' is already a sub-agent of '${workflowOrConfig.parentAgent.name}'; a WorkflowAgent takes the place of a workflow that is in no tree. Build a new Workflow for it.`,
        );
      releaseSubAgents(workflowOrConfig);
      super(workflowOrConfig.config);
    } else super(workflowOrConfig);
  }
}

/** Lets another agent adopt `agent`'s children (a WorkflowAgent made from a Workflow). */
function releaseSubAgents(agent: BaseAgent): void {
  for (const child of agent.subAgents) (child as unknown as { parent: BaseAgent | undefined }).parent = undefined;
}

/** True for a {@link Workflow} (or WorkflowAgent). */
export function isWorkflow(value: unknown): value is Workflow {
  return value instanceof Workflow;
}
