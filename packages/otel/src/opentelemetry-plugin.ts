import {
  context as otelContext,
  diag,
  SpanKind,
  trace,
  type Attributes,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  BasePlugin,
  ConfigurationError,
  GuardrailTrippedError,
  isFinalResponse,
  RunLimitError,
  type AgentOutcome,
  type BaseAgent,
  type BaseTool,
  type CallbackContext,
  type InvocationContext,
  type LlmRequest,
  type LlmResponse,
  type RunResult,
  type ToolContext,
} from '@troupe/core';
import { ATTR, providerOf, requestAttributes, responseAttributes } from './attributes.js';
import { jsonText, messagesJson } from './content.js';
import { traceNodeRuns } from './node-spans.js';
import { InvocationTrace, markError, type AgentNode, type Outcome } from './span-tree.js';

/** The instrumentation scope name of the plugin's tracer. */
export const TRACER_NAME = '@troupe/otel';

/** Options of {@link OpenTelemetryPlugin}. */
export interface OpenTelemetryPluginOptions {
  /**
   * The tracer that creates the spans. Give this or `tracerProvider`, not both.
   * @default the tracer named '@troupe/otel' of `tracerProvider`, else of the global provider
   */
  tracer?: Tracer;
  /**
   * The provider to take the tracer from.
   * @default the global provider (`trace.getTracerProvider()`), which does nothing until one is registered
   */
  tracerProvider?: TracerProvider;
  /**
   * Record content as span attributes: the user's message and the run's output, each model call's
   * system instruction, messages and answer, each tool call's arguments and result. Content can hold
   * personal data; leave it off unless the trace backend may store it.
   * @default false
   */
  captureContent?: boolean;
  /**
   * The plugin's name; plugin names are unique per runner.
   * @default 'opentelemetry'
   */
  name?: string;
}

/**
 * Traces runs with OpenTelemetry, following the GenAI semantic conventions: one trace per
 * invocation, with an `invocation` span holding an `invoke_agent <agent>` span per agent run (nested
 * as the agents nest: sub-agents, transfer targets, parallel branches, team skills, routed agents),
 * and under each agent a `chat <model>` span per model call and an `execute_tool <tool>` span per
 * tool call. The agent an AgentTool runs nests under that tool call's span. A graph workflow's
 * agent span holds an `invoke_node <node>` span per node run (path, run id, attempt, route), made
 * from the node records the workflow stored, when the workflow ends. Failures are recorded
 * on the spans they passed through (exception event, `error.type`, status ERROR). The plugin never
 * changes what a run does: every hook returns nothing.
 *
 * Install it first among the runner's plugins, so a hook of another plugin that short-circuits
 * (e.g. a cache answering `beforeModel`) cannot hide a call from it.
 *
 * @example
 * const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
 * const runner = new InMemoryRunner({ agent, plugins: [new OpenTelemetryPlugin({ tracerProvider: provider })] });
 */
export class OpenTelemetryPlugin extends BasePlugin {
  readonly captureContent: boolean;
  private readonly tracer: Tracer;
  private readonly traces = new Map<string, InvocationTrace>();

  constructor(options: OpenTelemetryPluginOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(
        `OpenTelemetryPlugin needs an options object such as { tracerProvider }; got ${String(options)}.`,
      );
    }
    super(options.name ?? 'opentelemetry');
    const { tracer, tracerProvider, captureContent } = options;
    if (tracer !== undefined && tracerProvider !== undefined) {
      throw new ConfigurationError(
        'OpenTelemetryPlugin got both tracer and tracerProvider. Pass one: the tracer, or the provider to take it from.',
      );
    }
    if (tracer !== undefined && typeof tracer?.startSpan !== 'function') {
      throw new ConfigurationError(
        `OpenTelemetryPlugin option tracer must be an OpenTelemetry Tracer (with startSpan); got ${describe(tracer)}. Pass provider.getTracer('my-app').`,
      );
    }
    if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== 'function') {
      throw new ConfigurationError(
        `OpenTelemetryPlugin option tracerProvider must be an OpenTelemetry TracerProvider (with getTracer); got ${describe(tracerProvider)}.`,
      );
    }
    if (captureContent !== undefined && typeof captureContent !== 'boolean') {
      throw new ConfigurationError(
        `OpenTelemetryPlugin option captureContent must be true or false; got ${describe(captureContent)}.`,
      );
    }
    this.tracer = tracer ?? (tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME);
    this.captureContent = captureContent ?? false;
  }

  override beforeRun({ context }: { context: InvocationContext }): undefined {
    return this.guard('beforeRun', () => {
      const invocationId = context.invocationId;
      const session = context.session;
      const attributes: Attributes = {
        [ATTR.invocationId]: invocationId,
        [ATTR.conversationId]: session.id,
        [ATTR.appName]: session.appName,
        // The agent the run started with; the one that answered is known at the end (afterRun).
        [ATTR.invocationEntryAgent]: context.agent.name,
      };
      if (context.resumeFrom !== undefined) attributes[ATTR.resumed] = true;
      if (this.captureContent && context.userContent)
        attributes[ATTR.inputMessages] = messagesJson([context.userContent]);
      const base = otelContext.active();
      const span = this.tracer.startSpan('invocation', { kind: SpanKind.INTERNAL, attributes }, base);
      // A no-op tracer, or a trace sampled out: nothing of this run is recorded, so no hook needs to do anything.
      if (!span.isRecording()) {
        span.end();
        return;
      }
      // The same invocation starting again (a resume) while its previous run never reported its end
      // (a consumer that dropped the run's generator without closing it): close what that left open.
      this.traces.get(invocationId)?.abandon();
      this.traces.set(
        invocationId,
        new InvocationTrace(
          this.tracer,
          base,
          span,
          { [ATTR.invocationId]: invocationId, [ATTR.conversationId]: session.id },
          session.events.length,
        ),
      );
    });
  }

  override afterRun({ context, result }: { context: InvocationContext; result: RunResult }): undefined {
    return this.guard('afterRun', () => {
      const run = this.traces.get(context.invocationId);
      if (!run) return;
      this.traces.delete(context.invocationId);
      run.root.span.setAttribute(ATTR.invocationAgent, answeringAgent(result) ?? context.agent.name);
      if (this.captureContent && result.output !== undefined)
        run.root.span.setAttribute(ATTR.runOutput, jsonText(result.output));
      // Node runs of workflows that had no span of their own (a workflow resumes without a
      // before-agent hook): under the invocation.
      const failed = result.status === 'failed' || result.status === 'limit' || result.status === 'blocked';
      traceNodeRuns(
        run,
        result.events,
        0,
        { parent: run.root, invocationId: context.invocationId },
        failed ? { reason: result.status, error: result.error ?? result.status } : { reason: result.status },
        this.captureContent,
      );
      run.finish(result);
    });
  }

  override beforeAgent({ context }: { agent: BaseAgent; context: CallbackContext }): undefined {
    return this.guard('beforeAgent', () => {
      this.traces.get(context.invocationId)?.startAgent(context.invocationContext, false);
    });
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
    return this.guard('afterAgent', () => {
      const run = this.traces.get(context.invocationId);
      const node = run?.findAgent(context.invocationContext);
      if (!node) return;
      // Every ending reaches this hook: a failed agent carries its error, what it left open ends with
      // it. A paused agent's spans are ended by afterRun, whose result names the open interrupts.
      let ending: Outcome | undefined;
      if (outcome === 'failed')
        ending = {
          reason:
            error instanceof RunLimitError ? 'limit' : error instanceof GuardrailTrippedError ? 'blocked' : 'failed',
          error,
        };
      else if (outcome === 'cancelled') ending = { reason: 'cancelled' };
      // A graph workflow's node runs, from the records it stored, under its span before it ends.
      if (node.agent.kind === 'workflow')
        traceNodeRuns(
          run!,
          context.invocationContext.session.events,
          Math.max(run!.eventsFrom, node.eventsFrom),
          { parent: node, workflow: { path: node.path, branch: node.branch }, invocationId: context.invocationId },
          ending ?? { reason: outcome === 'interrupted' ? 'interrupted' : 'parent_ended' },
          this.captureContent,
        );
      if (outcome === 'completed') run!.close(node);
      else if (ending) run!.close(node, ending, ending);
    });
  }

  override beforeModel({ context, request }: { context: CallbackContext; request: LlmRequest }): undefined {
    return this.guard('beforeModel', () => {
      const run = this.traces.get(context.invocationId);
      if (!run) return;
      const agent = run.agentFor(context.invocationContext);
      const attributes: Attributes = {
        [ATTR.operationName]: 'chat',
        [ATTR.requestModel]: request.model,
        [ATTR.agentName]: agent.agent.name,
        [ATTR.agentPath]: agent.path,
      };
      const provider = providerOf(request.model);
      if (provider) attributes[ATTR.providerName] = provider;
      requestAttributes(request, attributes);
      if (this.captureContent) {
        if (request.config.systemInstruction) attributes[ATTR.systemInstructions] = request.config.systemInstruction;
        attributes[ATTR.inputMessages] = messagesJson(request.contents);
      }
      run.startModel(agent, context, request.model, attributes);
    });
  }

  override afterModel({ context, response }: { context: CallbackContext; response: LlmResponse }): undefined {
    return this.guard('afterModel', () => {
      const run = this.traces.get(context.invocationId);
      const node = run?.models.get(context);
      if (!node || node.ended) return;
      // A routed model: the span is named after the model that answered, and each model that
      // failed before it gets its own error span, so a trace shows why the fallback happened.
      if (response.model && response.model !== node.requestModel) node.span.updateName(`chat ${response.model}`);
      for (const attempt of response.failedAttempts ?? []) {
        const agent = node.parent as AgentNode;
        const attributes: Attributes = {
          [ATTR.operationName]: 'chat',
          [ATTR.requestModel]: attempt.model,
          [ATTR.agentName]: agent.agent.name,
          [ATTR.agentPath]: agent.path,
        };
        const provider = providerOf(attempt.model);
        if (provider) attributes[ATTR.providerName] = provider;
        run!.recordFailedAttempt(node, attempt, attributes);
      }
      node.span.setAttributes(responseAttributes(response, node.requestModel));
      if (this.captureContent && response.content)
        node.span.setAttribute(ATTR.outputMessages, messagesJson([response.content], response.finishReason));
      run!.close(node);
    });
  }

  override onModelError({
    context,
    error,
  }: {
    context: CallbackContext;
    request: LlmRequest;
    error: unknown;
  }): undefined {
    return this.guard('onModelError', () => {
      const run = this.traces.get(context.invocationId);
      const node = run?.models.get(context);
      if (!node || node.ended) return;
      markError(node.span, error);
      run!.close(node);
    });
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
    return this.guard('beforeTool', () => {
      const run = this.traces.get(context.invocationId);
      if (!run) return;
      const caller = run.agentFor(context.invocationContext);
      const attributes: Attributes = {
        [ATTR.operationName]: 'execute_tool',
        [ATTR.toolName]: tool.name,
        [ATTR.toolCallId]: context.functionCallId,
        [ATTR.toolType]: 'function',
        [ATTR.agentName]: caller.agent.name,
        [ATTR.agentPath]: caller.path,
      };
      if (tool.description) attributes[ATTR.toolDescription] = tool.description;
      if (this.captureContent) attributes[ATTR.toolCallArguments] = jsonText(args);
      run.startTool(caller, context, tool, args, context.functionCallId, attributes);
    });
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
    return this.guard('afterTool', () => {
      const run = this.traces.get(context.invocationId);
      const node = run?.toolCalls.get(context);
      if (!node || node.ended) return;
      if (this.captureContent) node.span.setAttribute(ATTR.toolCallResult, jsonText(response));
      run!.close(node);
    });
  }

  override onToolError({
    context,
    error,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    error: unknown;
  }): undefined {
    return this.guard('onToolError', () => {
      const run = this.traces.get(context.invocationId);
      const node = run?.toolCalls.get(context);
      if (!node || node.ended) return;
      // The call's own span ends in afterTool, which follows with the error response; an
      // AgentTool's agent has already ended its spans through its afterAgent outcome.
      markError(node.span, error);
    });
  }

  /**
   * Runs a hook's work. Tracing must never change or break a run, so a fault in it is reported
   * through OpenTelemetry's diagnostic logger (`diag`) instead of being thrown into the run.
   */
  private guard(hook: string, work: () => void): undefined {
    try {
      work();
    } catch (error) {
      diag.error(`${TRACER_NAME}: the ${hook} hook failed; the run goes on without that span data.`, error);
    }
    return undefined;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The agent whose final response ended the run (after transfers, the last step of a pipeline…). */
function answeringAgent(result: RunResult): string | undefined {
  for (let i = result.events.length - 1; i >= 0; i--) {
    const event = result.events[i]!;
    if (event.author !== 'user' && event.errorCode === undefined && isFinalResponse(event)) return event.author;
  }
  return undefined;
}
