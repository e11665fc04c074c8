import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import type { BaseAgent, BaseTool, FailedModelAttempt, InvocationContext, RunResult } from '@troupe/core';
import { ATTR, runAttributes, type EndReason } from './attributes.js';

/** How a span the plugin closes itself ended: why, and the error that passed through it, if any. */
export interface Outcome {
  reason: EndReason;
  error?: unknown;
}

/** An open span and its place in the tree. */
export class SpanNode {
  readonly children = new Set<SpanNode>();
  ended = false;
  /** The context that makes this span the parent, made once for all children. */
  private context: Context | undefined;

  constructor(
    readonly span: Span,
    readonly parent: SpanNode | undefined,
  ) {
    parent?.children.add(this);
  }

  /** The OpenTelemetry context of this span's children, on top of `base`. */
  contextFor(base: Context): Context {
    return (this.context ??= trace.setSpan(base, this.span));
  }
}

/** The span of one agent run. */
export class AgentNode extends SpanNode {
  /** The model call of this agent that has not reported its end yet. */
  openModel: ModelNode | undefined;

  constructor(
    span: Span,
    parent: SpanNode,
    readonly agent: BaseAgent,
    readonly path: string,
    readonly branch: string,
    readonly input: Record<string, unknown>,
    /** How many events the session held when the agent started: its events come after. */
    readonly eventsFrom: number,
  ) {
    super(span, parent);
  }
}

/** The span of one model call. */
export class ModelNode extends SpanNode {
  constructor(
    span: Span,
    parent: AgentNode,
    /** The model the request named (the response may name another: routing, fallback). */
    readonly requestModel: string,
  ) {
    super(span, parent);
  }
}

/** The span of one tool call. */
export class ToolNode extends SpanNode {
  /** True once the agent an AgentTool runs has been placed under this call. */
  claimed = false;

  constructor(
    span: Span,
    readonly caller: AgentNode,
    readonly tool: BaseTool,
    readonly args: Record<string, unknown>,
    readonly callId: string,
  ) {
    super(span, caller);
  }
}

/**
 * The open spans of one invocation and how they nest. Agents are found by their invocation
 * context (the same object reaches every hook of one agent run), else by path and branch.
 */
export class InvocationTrace {
  readonly root: SpanNode;
  /** Model calls by the CallbackContext their hooks share. */
  readonly models = new WeakMap<object, ModelNode>();
  /** Tool calls by the ToolContext their hooks share. */
  readonly toolCalls = new WeakMap<object, ToolNode>();
  private readonly agentsByContext = new WeakMap<InvocationContext, AgentNode>();
  private readonly agentsByPath = new Map<string, AgentNode[]>();
  private readonly openTools = new Set<ToolNode>();
  /** The graph workflow node records already traced (by event id), so none is traced twice. */
  readonly tracedRecords = new Set<string>();

  constructor(
    private readonly tracer: Tracer,
    /** The context active when the run started: its baggage and parent reach every span. */
    private readonly base: Context,
    rootSpan: Span,
    /** Attributes every span of the invocation carries. */
    readonly common: Attributes,
    /** How many events the session held when the run started: this run's events come after. */
    readonly eventsFrom: number,
  ) {
    this.root = new SpanNode(rootSpan, undefined);
  }

  /**
   * Starts a span under `parent`; `attributes` (a fresh object) gets the invocation's common ones
   * too. `startTime` dates a span made after the fact (a workflow node run, from its events).
   */
  startSpan(name: string, kind: SpanKind, parent: SpanNode, attributes: Attributes, startTime?: TimeInput): Span {
    Object.assign(attributes, this.common);
    const options = startTime === undefined ? { kind, attributes } : { kind, attributes, startTime };
    return this.tracer.startSpan(name, options, parent.contextFor(this.base));
  }

  /** Opens the span of an agent that is starting (or, with `resumed`, continuing after a pause). */
  startAgent(ctx: InvocationContext, resumed: boolean): AgentNode {
    const parent = this.parentOf(ctx);
    if (parent instanceof AgentNode) this.supersedeModel(parent);
    // Agents on one branch under one parent run one after the other: an open sibling there was
    // skipped by a before-agent callback, or failed and was retried (RoutedAgent).
    for (const sibling of parent.children) {
      if (sibling instanceof AgentNode && sibling.branch === ctx.branch) this.close(sibling, { reason: 'superseded' });
    }
    const agent = ctx.agent;
    const attributes: Attributes = {
      [ATTR.operationName]: 'invoke_agent',
      [ATTR.agentName]: agent.name,
      [ATTR.agentPath]: ctx.path,
      [ATTR.agentType]: agent.constructor.name,
      [ATTR.agentKind]: agent.kind,
    };
    if (agent.description) attributes[ATTR.agentDescription] = agent.description;
    if (ctx.branch) attributes[ATTR.agentBranch] = ctx.branch;
    if (resumed) attributes[ATTR.agentResumed] = true;
    const span = this.startSpan(`invoke_agent ${agent.name}`, SpanKind.INTERNAL, parent, attributes);
    const node = new AgentNode(span, parent, agent, ctx.path, ctx.branch, ctx.input, ctx.session.events.length);
    this.agentsByContext.set(ctx, node);
    const list = this.agentsByPath.get(ctx.path);
    if (list) list.push(node);
    else this.agentsByPath.set(ctx.path, [node]);
    return node;
  }

  /** The open span of the agent running in `ctx`, if there is one. */
  findAgent(ctx: InvocationContext): AgentNode | undefined {
    const known = this.agentsByContext.get(ctx);
    // Ended early by the plugin (superseded, say): never hand out another run's span instead.
    if (known) return known.ended ? undefined : known;
    const list = this.agentsByPath.get(ctx.path);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.branch === ctx.branch) return list[i];
    return undefined;
  }

  /**
   * The span a model or tool call of the agent in `ctx` goes under. An agent resumed after a pause
   * gets no before-agent hook, so its span is opened here, on its first model or tool call.
   */
  agentFor(ctx: InvocationContext): AgentNode {
    const node = this.findAgent(ctx) ?? this.startAgent(ctx, true);
    this.agentsByContext.set(ctx, node);
    this.supersedeModel(node);
    return node;
  }

  /** Opens the span of a model call. */
  startModel(agent: AgentNode, key: object, model: string, attributes: Attributes): ModelNode {
    const node = new ModelNode(this.startSpan(`chat ${model}`, SpanKind.CLIENT, agent, attributes), agent, model);
    agent.openModel = node;
    this.models.set(key, node);
    return node;
  }

  /**
   * Records a model call that failed before a fallback model answered (RoutedLlm, `fallbackModels`):
   * its own span beside the call that answered, with the times it ran and its error.
   */
  recordFailedAttempt(model: ModelNode, attempt: FailedModelAttempt, attributes: Attributes): void {
    const agent = model.parent as AgentNode;
    Object.assign(attributes, this.common);
    const span = this.tracer.startSpan(
      `chat ${attempt.model}`,
      { kind: SpanKind.CLIENT, attributes, startTime: attempt.startTime },
      agent.contextFor(this.base),
    );
    const status = (attempt.error as { status?: unknown } | null)?.status;
    if (typeof status === 'number') span.setAttribute(ATTR.httpStatusCode, status);
    markError(span, attempt.error);
    span.end(attempt.endTime);
  }

  /** Opens the span of a tool call. */
  startTool(
    caller: AgentNode,
    key: object,
    tool: BaseTool,
    args: Record<string, unknown>,
    callId: string,
    attributes: Attributes,
  ): ToolNode {
    const node = new ToolNode(
      this.startSpan(`execute_tool ${tool.name}`, SpanKind.INTERNAL, caller, attributes),
      caller,
      tool,
      args,
      callId,
    );
    this.openTools.add(node);
    this.toolCalls.set(key, node);
    return node;
  }

  /** Ends a node after its still-open descendants; those end with `descendants`, the node with `own`. */
  close(node: SpanNode, own?: Outcome, descendants: Outcome = { reason: 'parent_ended' }): void {
    if (node.ended) return;
    for (const child of [...node.children]) this.close(child, descendants, descendants);
    this.end(node, own);
  }

  /** Ends every span still open when the run ended, each with what the run's result says about it, then the invocation span. */
  finish(result: RunResult): void {
    const failed = result.status === 'failed' || result.status === 'limit' || result.status === 'blocked';
    // Agents report their own endings (afterAgent outcomes); what is still open here is what the
    // run's end cut short (a cancelled run stops waiting for a busy step), or a paused tool call.
    const visit = (node: SpanNode): void => {
      for (const child of [...node.children]) visit(child);
      if (node === this.root) return;
      if (node instanceof ToolNode && result.status === 'interrupted') {
        const interrupt = result.interrupts.find(
          (i) => i.toolCallId === node.callId && i.agentPath === node.caller.path,
        );
        if (interrupt)
          node.span.setAttributes({ [ATTR.interruptId]: interrupt.id, [ATTR.interruptKind]: interrupt.kind });
      }
      this.end(node, { reason: result.status });
    };
    visit(this.root);
    const span = this.root.span;
    span.setAttributes(runAttributes(result));
    if (failed) markError(span, result.error ?? result.status);
    span.end();
    this.root.ended = true;
  }

  /** Ends every open span of a run that never reported its end, as cancelled. */
  abandon(): void {
    this.close(this.root, { reason: 'cancelled' }, { reason: 'cancelled' });
  }

  /**
   * Where an agent's span goes: under the AgentTool call that runs it, else under the nearest open
   * agent up its path whose branch contains its branch, else under the invocation span.
   */
  private parentOf(ctx: InvocationContext): SpanNode {
    const path = ctx.path;
    const cut = path.lastIndexOf('/');
    if (cut < 0) return this.root;
    const callerPath = path.slice(0, cut);
    const tool = this.agentToolCall(ctx, callerPath);
    if (tool) return tool;
    for (let prefix: string | undefined = callerPath; prefix !== undefined; prefix = parentPath(prefix)) {
      const list = this.agentsByPath.get(prefix);
      if (!list) continue;
      let best: AgentNode | undefined;
      for (const node of list) {
        if (!contains(node.branch, ctx.branch)) continue;
        // The closest branch wins; among equals (the same agent running twice at once), the run
        // that handed this agent its input, else the latest.
        if (
          !best ||
          node.branch.length > best.branch.length ||
          (node.branch.length === best.branch.length && (node.input === ctx.input || best.input !== ctx.input))
        ) {
          best = node;
        }
      }
      if (best) return best;
    }
    return this.root;
  }

  /** The open, unclaimed AgentTool call that runs the agent of `ctx`, if any. */
  private agentToolCall(ctx: InvocationContext, callerPath: string): ToolNode | undefined {
    let found: ToolNode | undefined;
    for (const node of this.openTools) {
      if (node.claimed || node.caller.path !== callerPath || (node.tool as { agent?: unknown }).agent !== ctx.agent)
        continue;
      if (childBranch(node.caller.branch, node.caller.agent.name, ctx.agent.name) !== ctx.branch) continue;
      // Two calls of one AgentTool in a turn: the call whose arguments became the agent's input.
      if (!found || (node.args === ctx.input && found.args !== ctx.input)) found = node;
    }
    if (found) found.claimed = true;
    return found;
  }

  private supersedeModel(agent: AgentNode): void {
    if (agent.openModel) this.close(agent.openModel, { reason: 'superseded' });
  }

  private end(node: SpanNode, outcome: Outcome | undefined): void {
    if (node.ended) return;
    node.ended = true;
    if (outcome) {
      node.span.setAttribute(ATTR.endReason, outcome.reason);
      if (outcome.error !== undefined) markError(node.span, outcome.error);
    }
    node.span.end();
    node.parent?.children.delete(node);
    if (node instanceof AgentNode) {
      const list = this.agentsByPath.get(node.path);
      if (list) {
        const index = list.indexOf(node);
        if (index >= 0) list.splice(index, 1);
        if (list.length === 0) this.agentsByPath.delete(node.path);
      }
    } else if (node instanceof ToolNode) {
      this.openTools.delete(node);
    } else if (node instanceof ModelNode && node.parent instanceof AgentNode && node.parent.openModel === node) {
      node.parent.openModel = undefined;
    }
  }
}

/** Records an error on a span: the exception event, `error.type` and status ERROR. */
export function markError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  else span.recordException(String(error));
  span.setAttribute(ATTR.errorType, errorType(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** A low-cardinality name for an error: a Troupe error's code, else the error class. */
function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}

function parentPath(path: string): string | undefined {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? undefined : path.slice(0, cut);
}

/** True when `branch` is `outer` or lies inside it (`outer.x.y`). */
function contains(outer: string, branch: string): boolean {
  return (
    outer === '' ||
    branch === outer ||
    (branch.length > outer.length && branch.startsWith(outer) && branch.charCodeAt(outer.length) === 46) /* . */
  );
}

/** The branch core gives an isolated child (mirrors InvocationContext.childBranch). */
function childBranch(branch: string, parentName: string, childName: string): string {
  return branch ? `${branch}.${parentName}.${childName}` : `${parentName}.${childName}`;
}
