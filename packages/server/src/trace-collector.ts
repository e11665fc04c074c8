import {
  type AgentOutcome,
  type BaseAgent,
  BasePlugin,
  type BaseTool,
  type CallbackContext,
  type Event,
  type InvocationContext,
  type LlmRequest,
  type LlmResponse,
  type ToolContext,
} from '@troupe/core';

/** One span of an invocation: an agent run, a model call or a tool call. */
export interface TraceSpan {
  /** Unique within the collector. */
  spanId: string;
  /** The span this one ran inside (the agent of a model or tool call; the agent that called a sub-agent). */
  parentSpanId?: string;
  kind: 'agent' | 'model' | 'tool';
  /** The agent's name, the model's name or the tool's name. */
  name: string;
  /** The agent the span belongs to (for a model or tool call, the agent that made it). */
  agent: string;
  invocationId: string;
  sessionId: string;
  userId: string;
  branch: string;
  /** The agent path the span ran at (`Root/Child`). */
  path: string;
  /** Milliseconds since the epoch. */
  startTime: number;
  /** Undefined while the span is open. */
  endTime?: number;
  /** How the span ended: `completed`, `failed`, `cancelled` or `interrupted` (agents), `error` (model, tool). */
  status?: string;
  error?: string;
  /** A model call: what the model was sent (system instruction, contents, tools, settings), redacted. */
  llmRequest?: unknown;
  /** A model call: its final response, redacted. */
  llmResponse?: unknown;
  /** A tool call: its arguments and result, redacted. */
  toolArgs?: unknown;
  toolResponse?: unknown;
  /** The events this span produced (a model call: the event carrying its response). */
  eventIds: string[];
}

/** One invocation's spans, in the order they started. */
interface InvocationTrace {
  appName: string;
  sessionId: string;
  userId: string;
  spans: TraceSpan[];
  /** About how many characters its requests and responses hold, for the app's budget. */
  size: number;
}

/** Bounds of a {@link TraceCollector}. */
export interface TraceCollectorLimits {
  /** Invocations kept per app; the oldest are forgotten first. @default 200 */
  invocationsPerApp?: number;
  /** Spans kept per invocation; later ones are dropped. @default 2000 */
  spansPerInvocation?: number;
  /** Longest string kept in a request or response; longer ones are cut. @default 20000 */
  maxStringLength?: number;
  /**
   * About how many characters of requests and responses are kept per app; the oldest invocations
   * are forgotten beyond it (each model call repeats the conversation so far). @default 32_000_000
   */
  maxCharsPerApp?: number;
}

const DEFAULTS: Required<TraceCollectorLimits> = {
  invocationsPerApp: 200,
  spansPerInvocation: 2000,
  maxStringLength: 20_000,
  maxCharsPerApp: 32_000_000,
};

/**
 * Keeps, in this server process, the spans of recent invocations: agents, model calls with the
 * request the model was sent and its response, and tool calls. The dev UI reads them through the
 * debug trace routes to show what the model saw; the session stores only the events, not the
 * requests built from them. Bounded per app; strings are masked with the runner's redactor (its
 * `secrets` and the environment's secret-named variables) before they are kept.
 */
export class TraceCollector {
  private readonly limits: Required<TraceCollectorLimits>;
  /** By app, then by invocation id, oldest first (Map keeps insertion order). */
  private readonly apps = new Map<string, Map<string, InvocationTrace>>();
  private readonly byEvent = new Map<string, TraceSpan>();
  private readonly sizes = new Map<string, number>();
  private nextId = 0;

  constructor(limits: TraceCollectorLimits = {}) {
    this.limits = { ...DEFAULTS, ...limits };
  }

  /** The plugin that feeds this collector; add it to the runner of every app. */
  plugin(): BasePlugin {
    return new TracePlugin(this);
  }

  /** The model span whose response an event carries, or another span that produced it. */
  spanOfEvent(eventId: string): TraceSpan | undefined {
    return this.byEvent.get(eventId);
  }

  /** Every span kept for a session, oldest invocation first. */
  sessionSpans(sessionId: string, appName?: string): TraceSpan[] {
    const spans: TraceSpan[] = [];
    for (const [app, invocations] of this.apps) {
      if (appName !== undefined && app !== appName) continue;
      for (const trace of invocations.values()) if (trace.sessionId === sessionId) spans.push(...trace.spans);
    }
    return spans;
  }

  /** @internal Opens a span; undefined once the invocation holds the most spans it may. */
  open(ctx: InvocationContext, span: Omit<TraceSpan, keyof SpanBase | 'eventIds'>): TraceSpan | undefined {
    const trace = this.invocation(ctx);
    if (trace.spans.length >= this.limits.spansPerInvocation) return undefined;
    const opened: TraceSpan = {
      spanId: `s${++this.nextId}`,
      invocationId: ctx.invocationId,
      sessionId: ctx.session.id,
      userId: ctx.session.userId,
      branch: ctx.branch,
      path: ctx.path,
      startTime: Date.now(),
      eventIds: [],
      ...span,
    };
    trace.spans.push(opened);
    return opened;
  }

  /** @internal Links an event to the span that produced it. */
  link(span: TraceSpan, eventId: string): void {
    span.eventIds.push(eventId);
    this.byEvent.set(eventId, span);
  }

  /** @internal The spans of an invocation so far. */
  spansOf(ctx: InvocationContext): TraceSpan[] {
    return this.apps.get(ctx.session.appName)?.get(ctx.invocationId)?.spans ?? [];
  }

  /**
   * @internal A value as plain JSON with its strings masked and cut to the limit, counted in the
   * app's budget (the oldest invocations are forgotten when it is exceeded).
   */
  snapshot(ctx: InvocationContext, value: unknown): unknown {
    const copy = this.copy(ctx, value);
    const chars = JSON.stringify(copy)?.length ?? 0;
    const trace = this.invocation(ctx);
    trace.size += chars;
    const appName = ctx.session.appName;
    this.sizes.set(appName, (this.sizes.get(appName) ?? 0) + chars);
    const invocations = this.apps.get(appName)!;
    while ((this.sizes.get(appName) ?? 0) > this.limits.maxCharsPerApp && invocations.size > 1)
      this.forgetOldest(appName);
    return copy;
  }

  private copy(ctx: InvocationContext, value: unknown): unknown {
    const redact = ctx.shared.redact;
    const max = this.limits.maxStringLength;
    const walk = (item: unknown, depth: number): unknown => {
      if (typeof item === 'string') {
        const masked = redact(item);
        return masked.length > max ? `${masked.slice(0, max)}… (${masked.length - max} more characters)` : masked;
      }
      if (item === null || typeof item !== 'object') return typeof item === 'function' ? undefined : item;
      if (depth > 40) return '(nested too deep)';
      if (Array.isArray(item)) return item.map((entry) => walk(entry, depth + 1));
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) {
        const kept = walk(entry, depth + 1);
        if (kept !== undefined) out[key] = kept;
      }
      return out;
    };
    return walk(value, 0);
  }

  private invocation(ctx: InvocationContext): InvocationTrace {
    const appName = ctx.session.appName;
    let invocations = this.apps.get(appName);
    if (!invocations) {
      invocations = new Map();
      this.apps.set(appName, invocations);
    }
    let trace = invocations.get(ctx.invocationId);
    if (!trace) {
      trace = { appName, sessionId: ctx.session.id, userId: ctx.session.userId, spans: [], size: 0 };
      invocations.set(ctx.invocationId, trace);
      while (invocations.size > this.limits.invocationsPerApp) this.forgetOldest(appName);
    }
    return trace;
  }

  private forgetOldest(appName: string): void {
    const invocations = this.apps.get(appName);
    const oldest = invocations?.entries().next().value;
    if (!invocations || !oldest) return;
    const [id, forgotten] = oldest;
    invocations.delete(id);
    this.sizes.set(appName, (this.sizes.get(appName) ?? 0) - forgotten.size);
    for (const span of forgotten.spans) for (const eventId of span.eventIds) this.byEvent.delete(eventId);
  }
}

type SpanBase = Pick<
  TraceSpan,
  'spanId' | 'invocationId' | 'sessionId' | 'userId' | 'branch' | 'path' | 'startTime' | 'endTime' | 'status' | 'error'
>;

/**
 * Records spans from the runner's hooks. Open spans are found again by their context: the agent
 * span by its InvocationContext, a model span by its CallbackContext, a tool span by its ToolContext.
 */
class TracePlugin extends BasePlugin {
  private readonly agents = new WeakMap<InvocationContext, TraceSpan>();
  private readonly models = new WeakMap<CallbackContext, TraceSpan>();
  // Weak: a tool call cut short by a cancellation never reaches afterTool or onToolError.
  private readonly tools = new WeakMap<ToolContext, TraceSpan>();

  constructor(private readonly collector: TraceCollector) {
    super('troupe-dev-trace');
  }

  override beforeAgent({ agent, context }: { agent: BaseAgent; context: CallbackContext }): undefined {
    const ctx = context.invocationContext;
    const parent = this.enclosingAgent(ctx);
    const span = this.collector.open(ctx, {
      kind: 'agent',
      name: agent.name,
      agent: agent.name,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
    });
    if (span) this.agents.set(ctx, span);
    return undefined;
  }

  override afterAgent({
    context,
    outcome,
    error,
  }: {
    agent: BaseAgent;
    context: CallbackContext;
    outcome: AgentOutcome;
    error?: unknown;
  }): undefined {
    const ctx = context.invocationContext;
    const span = this.agents.get(ctx);
    if (span) close(span, outcome, error, ctx);
    // A model call an agent's own beforeModelCallback answered never reaches afterModel: end it with its agent.
    for (const open of this.collector.spansOf(ctx))
      if (open.kind !== 'agent' && open.endTime === undefined && open.path === ctx.path)
        close(open, outcome === 'completed' ? 'skipped' : outcome, undefined, ctx);
    return undefined;
  }

  override beforeModel({ context, request }: { context: CallbackContext; request: LlmRequest }): undefined {
    const ctx = context.invocationContext;
    const parent = this.agents.get(ctx);
    const span = this.collector.open(ctx, {
      kind: 'model',
      name: request.model,
      agent: ctx.agent.name,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      llmRequest: this.collector.snapshot(ctx, request),
    });
    if (span) this.models.set(context, span);
    return undefined;
  }

  override afterModel({ context, response }: { context: CallbackContext; response: LlmResponse }): undefined {
    const span = this.models.get(context);
    if (span) {
      span.llmResponse = this.collector.snapshot(context.invocationContext, response);
      if (response.model) span.name = response.model;
      span.endTime = Date.now();
      span.status = 'completed';
    }
    return undefined;
  }

  override onModelError({ context, error }: { context: CallbackContext; error: unknown }): undefined {
    const span = this.models.get(context);
    if (span) close(span, 'error', error, context.invocationContext);
    return undefined;
  }

  override beforeTool({
    tool,
    args,
    context,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
  }): undefined {
    const ctx = context.invocationContext;
    const parent = this.agents.get(ctx);
    const span = this.collector.open(ctx, {
      kind: 'tool',
      name: tool.name,
      agent: ctx.agent.name,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      toolArgs: this.collector.snapshot(ctx, args),
    });
    if (span) this.tools.set(context, span);
    return undefined;
  }

  override afterTool({
    context,
    response,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }): undefined {
    const span = this.tools.get(context);
    if (span) {
      span.toolResponse = this.collector.snapshot(context.invocationContext, response);
      span.endTime = Date.now();
      span.status = 'completed';
    }
    return undefined;
  }

  override onToolError({ context, error }: { tool: BaseTool; context: ToolContext; error: unknown }): undefined {
    const span = this.tools.get(context);
    if (span) {
      close(span, 'error', error, context.invocationContext);
    }
    return undefined;
  }

  /**
   * Links a model's final event to its call: the latest finished model span of the event's agent
   * and branch that has no event yet. Partial chunks and tool results are not the model's answer.
   */
  override onEvent({ context, event }: { context: InvocationContext; event: Event }): undefined {
    if (event.partial || event.author === 'user' || !event.content) return undefined;
    if (event.content.parts.some((part) => 'functionResponse' in part)) return undefined;
    const spans = this.collector.spansOf(context);
    for (let i = spans.length - 1; i >= 0; i--) {
      const span = spans[i]!;
      if (span.kind !== 'model' || span.agent !== event.author || span.branch !== event.branch) continue;
      if (span.eventIds.length === 0 && span.endTime !== undefined) this.collector.link(span, event.id);
      break;
    }
    return undefined;
  }

  /** The agent span a new agent runs inside: the latest open agent span on its path (parallel branches have their own). */
  private enclosingAgent(ctx: InvocationContext): TraceSpan | undefined {
    const spans = this.collector.spansOf(ctx);
    for (let i = spans.length - 1; i >= 0; i--) {
      const span = spans[i]!;
      if (span.kind === 'agent' && span.endTime === undefined && ctx.path.startsWith(`${span.path}/`)) return span;
    }
    return undefined;
  }
}

function close(span: TraceSpan, status: string, error: unknown, ctx: InvocationContext): void {
  span.endTime = Date.now();
  span.status = status;
  if (error !== undefined) span.error = ctx.shared.redact(error instanceof Error ? error.message : String(error));
}
