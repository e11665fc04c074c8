import { checkContextCache, type ContextCacheOptions } from '../models/context-cache.js';
import type { Content, FunctionCall } from '../events/content.js';
import { contentText } from '../events/content.js';
import type { Event, EventActions, Usage } from '../events/event.js';
import { ConfigurationError, OutputValidationError, TransferLimitError, TransferTargetError } from '../errors.js';
import { isBaseLlm, type BaseLlm } from '../models/base-llm.js';
import type { GenerateContentConfig, LlmRequest, LlmResponse } from '../models/llm-request.js';
import { resolveModel } from '../models/registry.js';
import { fallbackChain } from '../models/routed-llm.js';
import type { OneOrMany } from '../runner/plugin-manager.js';
import { BaseTool } from '../tools/base-tool.js';
import { BaseToolset } from '../tools/base-toolset.js';
import { AgentTool } from '../tools/agent-tool.js';
import { isBaseNode } from '../workflow/base-node.js';
import { nodeTool } from '../workflow/node-tool.js';
import { Workflow } from '../workflow/workflow.js';
import { workingMemoryTool } from '../working-memory/working-memory-tool.js';
import type { WorkingMemoryOptions } from '../working-memory/working-memory-options.js';
import { checkGuardrails, type InputGuardrail, type OutputGuardrail } from '../guardrails/guardrail.js';
import { holdUntil } from '../guardrails/hold-until.js';
import { InputCheck } from '../guardrails/input-check.js';
import { checkOutput } from '../guardrails/output-check.js';
import type { Schema } from '../utils/schema.js';
import { BaseAgent } from './base-agent.js';
import type { InvocationContext } from './invocation-context.js';
import { parseStructured, toolTurnOutput } from './llm/final-output.js';
import type { IncludeContents } from './llm/history.js';
import { checkIncludeContents } from './llm/include-contents.js';
import {
  callModel,
  modelCallChunks,
  type AfterModelCallback,
  type BeforeModelCallback,
  type ModelCallResult,
} from './llm/model-call.js';
import { buildRequest, type Instruction, type RequestSource } from './llm/request-builder.js';
import { inCallOrder } from './llm/call-order.js';
import { findLlmResumePoint, type EarlierResults } from './llm/resume-point.js';
import { executeFunctionCalls, type AfterToolCallback, type BeforeToolCallback } from './llm/tool-execution.js';
import { AgentToolbox } from './llm/agent-toolbox.js';
import { transferCapable, transferTargets, TRANSFER_TOOL_NAME } from './llm/transfer.js';
import { inputToText } from './structured-input.js';
import type { AgentKind, AgentOutline } from './agent-outline.js';
import { generatorOf, type EventSink } from './event-sink.js';
import type { LlmAgentOptions } from './llm-agent-options.js';

export type { Instruction } from './llm/request-builder.js';
export type { LlmAgentOptions } from './llm-agent-options.js';

interface TurnState {
  /** The agent's most recent text in this run (for outputKey when the turn ends without text). */
  lastText: string | undefined;
}

/** What a turn keeps between answers that failed the output schema. */
interface AnswerState {
  /** The model answered once against the schema already (a second failure ends the run). */
  outputRetried: boolean;
  /** The correction sent with the next request. */
  correction: Content[];
}

/** The function calls of one model turn to run now. */
interface CallStep {
  calls: FunctionCall[];
  /** On a resume: where the paused calls' own events start. */
  resumeFrom: number | undefined;
  /** On a resume: what the turn's other calls gave before it (only the unanswered calls run again). */
  earlier: EarlierResults | undefined;
}

/**
 * An agent driven by a model: it builds a request from its instruction and the visible history,
 * runs the tools the model asks for (several at once), and repeats until the model answers,
 * transfers to another agent, or a tool ends the turn.
 *
 * @example
 * const capital = new LlmAgent({
 *   name: 'AgentA',
 *   model: 'gemini-2.5-flash',
 *   instruction: 'Find the capital of France.',
 *   outputKey: 'capital_city',
 * });
 */
export class LlmAgent extends BaseAgent {
  readonly model: string | BaseLlm | undefined;
  readonly fallbackModels: readonly (string | BaseLlm)[];
  readonly instruction: Instruction;
  readonly globalInstruction: Instruction | undefined;
  readonly tools: readonly BaseTool[];
  readonly toolsets: readonly BaseToolset[];
  readonly outputKey: string | undefined;
  override readonly outputSchema: Schema | undefined;
  override readonly inputSchema: Schema | undefined;
  readonly inputKey: string | undefined;
  readonly includeContents: IncludeContents;
  /** The agent's own prompt caching (checked); undefined: the Runner's. */
  readonly contextCache: Required<ContextCacheOptions> | false | undefined;
  readonly disallowTransferToParent: boolean;
  readonly disallowTransferToPeers: boolean;
  readonly generateContentConfig: GenerateContentConfig | undefined;
  readonly beforeModelCallback: OneOrMany<BeforeModelCallback> | undefined;
  readonly afterModelCallback: OneOrMany<AfterModelCallback> | undefined;
  readonly beforeToolCallback: OneOrMany<BeforeToolCallback> | undefined;
  readonly afterToolCallback: OneOrMany<AfterToolCallback> | undefined;
  readonly inputGuardrails: readonly InputGuardrail[];
  readonly outputGuardrails: readonly OutputGuardrail[];
  readonly streamBeforeOutputGuardrails: boolean;
  /** Runs code without a confirmation interrupt (see {@link LlmAgentOptions.allowCodeExecution}). */
  readonly allowCodeExecution: boolean;
  /** The agent's working memory options, when it has one (see {@link LlmAgentOptions.workingMemory}). */
  readonly workingMemory: WorkingMemoryOptions | undefined;
  private resolvedModel: BaseLlm | undefined;
  private readonly toolbox = new AgentToolbox(this);

  constructor(options: LlmAgentOptions) {
    super(options);
    const name = options.name;
    if (options.model !== undefined && typeof options.model !== 'string' && !isBaseLlm(options.model)) {
      throw new ConfigurationError(
        `Agent '${name}' has model ${describe(options.model)}; use a model string such as 'gemini-2.5-flash' or a BaseLlm instance.`,
      );
    }
    const tools: BaseTool[] = [];
    const toolsets: BaseToolset[] = [];
    for (const entry of options.tools ?? []) {
      if (entry instanceof BaseToolset) toolsets.push(entry);
      else if (isBaseNode(entry)) tools.push(nodeTool(entry));
      else if (entry instanceof Workflow) tools.push(new AgentTool({ agent: entry }));
      else tools.push(entry);
    }
    const memoryTool = workingMemoryTool(name, options.workingMemory);
    if (memoryTool) tools.push(memoryTool);
    const toolNames = new Set<string>();
    for (const tool of tools) {
      if (!(tool instanceof BaseTool)) {
        throw new ConfigurationError(
          `Agent '${name}' got a tool that is not a tool: ${describe(tool)}. Wrap functions in FunctionTool and agents in AgentTool.`,
        );
      }
      if (toolNames.has(tool.name) || tool.name === TRANSFER_TOOL_NAME) {
        throw new ConfigurationError(
          `Agent '${name}' has two tools named '${tool.name}'${tool.name === TRANSFER_TOOL_NAME ? ' (the name is reserved for transfers)' : ''}. Give each tool a unique name.`,
        );
      }
      toolNames.add(tool.name);
    }
    for (const fallback of options.fallbackModels ?? []) {
      if (typeof fallback !== 'string' && !isBaseLlm(fallback)) {
        throw new ConfigurationError(
          `Agent '${name}' has a fallback model ${describe(fallback)}; use model strings or BaseLlm instances.`,
        );
      }
    }
    this.model = options.model;
    this.fallbackModels = Object.freeze([...(options.fallbackModels ?? [])]);
    this.instruction = options.instruction ?? '';
    this.globalInstruction = options.globalInstruction;
    this.tools = Object.freeze(tools);
    this.toolsets = Object.freeze(toolsets);
    this.outputKey = options.outputKey;
    this.outputSchema = options.outputSchema;
    this.inputSchema = options.inputSchema;
    this.inputKey = options.inputKey;
    this.includeContents = checkIncludeContents(name, options.includeContents);
    this.contextCache = checkContextCache(`Agent '${name}'`, options.contextCache);
    this.disallowTransferToParent = options.disallowTransferToParent ?? false;
    this.disallowTransferToPeers = options.disallowTransferToPeers ?? false;
    this.generateContentConfig = options.generateContentConfig;
    this.beforeModelCallback = options.beforeModelCallback;
    this.afterModelCallback = options.afterModelCallback;
    this.beforeToolCallback = options.beforeToolCallback;
    this.afterToolCallback = options.afterToolCallback;
    this.inputGuardrails = checkGuardrails(`Agent '${name}'`, 'inputGuardrails', options.inputGuardrails);
    this.outputGuardrails = checkGuardrails(`Agent '${name}'`, 'outputGuardrails', options.outputGuardrails);
    this.streamBeforeOutputGuardrails = options.streamBeforeOutputGuardrails ?? false;
    if (options.allowCodeExecution !== undefined && typeof options.allowCodeExecution !== 'boolean') {
      throw new ConfigurationError(
        `Agent '${name}' option 'allowCodeExecution' must be true or false; got ${describe(options.allowCodeExecution)}. Omit it to ask a human before each run of code.`,
      );
    }
    this.allowCodeExecution = options.allowCodeExecution ?? false;
    this.workingMemory = options.workingMemory;
    transferCapable.set(this, this);
  }

  /** The model this agent calls: its own, the nearest ancestor LlmAgent's, or the runner's default. */
  canonicalModel(ctx?: InvocationContext): BaseLlm {
    if (this.resolvedModel) return this.resolvedModel;
    if (this.model !== undefined) {
      const primary = typeof this.model === 'string' ? resolveModel(this.model) : this.model;
      this.resolvedModel =
        this.fallbackModels.length === 0
          ? primary
          : fallbackChain([primary, ...this.fallbackModels.map((m) => (typeof m === 'string' ? resolveModel(m) : m))]);
      return this.resolvedModel;
    }
    for (let agent = this.parentAgent; agent; agent = agent.parentAgent) {
      if (agent instanceof LlmAgent && agent.model !== undefined) return agent.canonicalModel(ctx);
    }
    const fallback = ctx?.shared.defaultModel;
    if (fallback !== undefined) return typeof fallback === 'string' ? resolveModel(fallback) : fallback;
    throw new ConfigurationError(
      `Agent '${this.name}' has no model. Set 'model' on it or on an ancestor LlmAgent, or give the Runner a defaultModel (the CLI's --model).`,
    );
  }

  override inputMessage(input: Record<string, unknown>): Content {
    return { role: 'user', parts: [{ text: inputToText(input, this.inputKey) }] };
  }

  protected override onCallbackAnswer(event: Event, ctx: InvocationContext): void {
    super.onCallbackAnswer(event, ctx);
    if (this.outputKey !== undefined) event.actions.stateDelta[this.outputKey] = event.output;
  }

  override get kind(): AgentKind {
    return 'llm';
  }

  /** Its sub-agents, its tools (not toolsets: their tools are known only during a run) and the model it names. */
  override outline(): AgentOutline {
    const outline: AgentOutline = { children: this.subAgents, tools: this.tools };
    if (this.model !== undefined) outline.model = typeof this.model === 'string' ? this.model : this.model.model;
    return outline;
  }

  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    yield* generatorOf((sink) => this.runTurns(ctx, sink));
  }

  protected override runImplInto(ctx: InvocationContext, sink: EventSink): Promise<void> {
    if (this.runAsyncImpl !== LlmAgent.prototype.runAsyncImpl) return super.runImplInto(ctx, sink);
    return this.runTurns(ctx, sink);
  }

  /**
   * The agent's turn: model calls, their tool calls, until an answer, a transfer or a pause. Kept
   * small (what is rare — a resume, guardrails, output schemas — in functions of its own): it is
   * one of the functions every model call runs, and the optimizing compiler works on it whole.
   */
  private async runTurns(ctx: InvocationContext, sink: EventSink): Promise<void> {
    const model = this.canonicalModel(ctx);
    const toolbox = this.toolbox.forRun(ctx);
    const { tools, targets } = toolbox instanceof Promise ? await toolbox : toolbox;
    const turn: TurnState = { lastText: undefined };
    let pending: CallStep | undefined;
    let resumed = false;
    if (ctx.resumeFrom !== undefined) {
      const point = await this.resume(ctx, turn, sink);
      if (point === 'stop') return;
      if (point !== 'fresh') {
        resumed = true;
        if (point !== 'continue') pending = point;
      }
    }
    const freshCtx = ctx.fresh();
    // Input guardrails check the input once, when the agent starts (a resumed agent passed them already).
    let inputCheck =
      this.inputGuardrails.length > 0 && !resumed ? new InputCheck(freshCtx, this.inputGuardrails) : undefined;
    if (inputCheck) await inputCheck.runBlocking();
    const source = this.requestSource();
    const answer: AnswerState = { outputRetried: false, correction: [] };
    const out = this.responseSinks(ctx, model, sink);
    for (;;) {
      let step: CallStep;
      if (pending) {
        step = pending;
        pending = undefined;
      } else {
        ctx.throwIfAborted();
        const request = await buildRequest(freshCtx, source, model, tools, targets);
        if (answer.correction.length > 0) {
          request.contents.push(...answer.correction);
          answer.correction = [];
        }
        const called = inputCheck
          ? await this.callAfterInputCheck(freshCtx, model, request, inputCheck, out.partial)
          : await callModel(freshCtx, model, request, this, out.partial);
        const event = this.answerEvent(ctx, called, model, inputCheck);
        inputCheck = undefined;
        const text = contentText(event.content);
        if (text) turn.lastText = text;
        step = { calls: functionCallsOf(event), resumeFrom: undefined, earlier: undefined };
        if (step.calls.length === 0) {
          if (await this.finalAnswer(freshCtx, event, text, turn, answer, out.sinkResponse)) return;
          continue;
        }
        await out.sinkResponse(event);
      }
      const next = await this.runFunctionCalls(ctx, freshCtx, step, tools, turn, sink);
      if (next === 'stop') return;
    }
  }

  /** What this agent puts in its model requests (read per turn: the root's global instruction may change with the tree). */
  private requestSource(): RequestSource {
    const root = this.rootAgent;
    return {
      agent: this,
      globalInstruction: root instanceof LlmAgent ? root.globalInstruction : undefined,
      instruction: this.instruction,
      includeContents: this.includeContents,
      generateContentConfig: this.generateContentConfig,
      outputSchema: this.outputSchema,
      contextCache: this.contextCache,
    };
  }

  /**
   * The event of a model call's final response, with what its callbacks and the input check wrote.
   * A plain function rather than part of {@link runTurns}: the optimizing compiler compiles it for
   * much less there than inside the async function.
   */
  private answerEvent(
    ctx: InvocationContext,
    called: ModelCallResult,
    model: BaseLlm,
    inputCheck: InputCheck | undefined,
  ): Event {
    const { response, fromModel, context } = called;
    const event = this.responseEvent(ctx, response, model, false);
    context?.applyTo(event.actions);
    inputCheck?.applyTo(event.actions);
    if (fromModel) event.usage = normalizeUsage(response.usage);
    return event;
  }

  /**
   * Where a resumed agent goes on: its paused calls to run, 'continue' (a model call next), 'fresh'
   * (it had not started) or 'stop' (it had finished, or transferred and the target ran).
   */
  private async resume(
    ctx: InvocationContext,
    turn: TurnState,
    sink: EventSink,
  ): Promise<CallStep | 'continue' | 'fresh' | 'stop'> {
    const point = findLlmResumePoint(ctx, this.name);
    switch (point.kind) {
      case 'done':
        return 'stop';
      case 'transferred':
        await this.transfer(ctx.with({ resumeFrom: point.from }), point.target, sink);
        return 'stop';
      case 'pendingCalls':
        turn.lastText = point.lastText;
        return { calls: point.calls, resumeFrom: point.from, earlier: point.earlier };
      case 'continue':
        turn.lastText = point.lastText;
        return 'continue';
      case 'fresh':
        return 'fresh';
    }
  }

  /**
   * Where a response's streamed chunks and its event go. With output guardrails, chunks wait until
   * the response is known not to be a blocked answer: they go out just before its event (after the
   * check, for the final answer), or never.
   */
  private responseSinks(
    ctx: InvocationContext,
    model: BaseLlm,
    sink: EventSink,
  ): { partial: (chunk: LlmResponse) => Promise<void>; sinkResponse: EventSink } {
    const held: Event[] | undefined =
      this.outputGuardrails.length > 0 && !this.streamBeforeOutputGuardrails ? [] : undefined;
    if (!held) return { partial: (chunk) => sink(this.responseEvent(ctx, chunk, model, true)), sinkResponse: sink };
    return {
      partial: (chunk) => {
        held.push(this.responseEvent(ctx, chunk, model, true));
        return Promise.resolve();
      },
      sinkResponse: async (event) => {
        for (const chunk of held.splice(0)) await sink(chunk);
        await sink(event);
      },
    };
  }

  /** The first model call of a turn with input guardrails: its response (streamed chunks too) is held until they pass. */
  private async callAfterInputCheck(
    ctx: InvocationContext,
    model: BaseLlm,
    request: LlmRequest,
    inputCheck: InputCheck,
    partial: (chunk: LlmResponse) => Promise<void>,
  ): Promise<ModelCallResult> {
    const call = holdUntil(modelCallChunks(ctx, model, request, this), inputCheck.startConcurrent());
    let step = await call.next();
    while (!step.done) {
      await partial(step.value);
      step = await call.next();
    }
    return step.value;
  }

  /**
   * A response without calls: the agent's answer, checked against its output schema (one retry
   * with a correction, then OutputValidationError) and output guardrails, and handed on. False when
   * the model must answer again (`answer.correction` says why).
   */
  private async finalAnswer(
    freshCtx: InvocationContext,
    event: Event,
    text: string,
    turn: TurnState,
    answer: AnswerState,
    sinkResponse: EventSink,
  ): Promise<boolean> {
    if (this.outputSchema) {
      const parsed = await parseStructured(this.outputSchema, text);
      if (!parsed.ok) {
        if (answer.outputRetried) {
          throw new OutputValidationError(
            `Agent '${this.name}' answered twice with output that does not match its outputSchema: ${parsed.message}. Last answer: ${text.slice(0, 300)}`,
          );
        }
        answer.outputRetried = true;
        event.errorCode = 'OUTPUT_VALIDATION';
        event.errorMessage = parsed.message;
        await sinkResponse(event);
        answer.correction = [
          {
            role: 'user',
            parts: [
              {
                text: `Your answer did not match the required JSON schema (${parsed.message}). Reply again with only a JSON value that matches the schema.`,
              },
            ],
          },
        ];
        return false;
      }
      const check = checkOutput(freshCtx, this.outputGuardrails, parsed.value, event.actions);
      if (check) await check;
      this.setOutput(event, parsed.value);
    } else {
      const output = text || turn.lastText || '';
      const check = checkOutput(freshCtx, this.outputGuardrails, output, event.actions);
      if (check) await check;
      this.setOutput(event, output);
    }
    await sinkResponse(event);
    return true;
  }

  /** Runs one turn's calls, hands on their results (and pauses), and says whether the agent's turn goes on. */
  private async runFunctionCalls(
    ctx: InvocationContext,
    freshCtx: InvocationContext,
    { calls, resumeFrom, earlier }: CallStep,
    tools: ReadonlyMap<string, BaseTool>,
    turn: TurnState,
    sink: EventSink,
  ): Promise<'continue' | 'stop'> {
    const result = await executeFunctionCalls(freshCtx, calls, tools, this, resumeFrom, sink);
    let actions: EventActions | undefined;
    if (result.parts.length > 0) {
      const responseEvent = this.createEvent(ctx, { content: { role: 'user', parts: result.parts } });
      for (const toolCtx of result.contexts) toolCtx.applyTo(responseEvent.actions);
      actions = responseEvent.actions;
      if (result.paused) delete actions.transferToAgent;
      // A tool of this turn that finished before the pause still ends the turn once its siblings
      // are answered, with the whole turn's results, as the turn would have without the pause.
      if (earlier?.skipSummarization && !result.paused) actions.skipSummarization = true;
      if (actions.skipSummarization && !actions.transferToAgent && !result.paused) {
        const parts = earlier ? inCallOrder(earlier.callIds, [...earlier.parts, ...result.parts]) : result.parts;
        const output = turn.lastText ?? toolTurnOutput(parts);
        const check = checkOutput(freshCtx, this.outputGuardrails, output, actions);
        if (check) await check;
        this.setOutput(responseEvent, output);
      }
      await sink(responseEvent);
    }
    for (const interrupt of result.interrupts) await sink(this.createEvent(ctx, { interrupt }));
    if (result.paused || !actions) return 'stop';
    if (actions.transferToAgent) {
      await this.transfer(freshCtx, actions.transferToAgent, sink);
      return 'stop';
    }
    return actions.skipSummarization || actions.escalate || earlier?.ended ? 'stop' : 'continue';
  }

  private setOutput(event: Event, output: unknown): void {
    event.output = output;
    if (this.outputKey !== undefined && output !== undefined) event.actions.stateDelta[this.outputKey] = output;
  }

  private async transfer(ctx: InvocationContext, targetName: string, sink: EventSink): Promise<void> {
    const target = this.rootAgent.findAgent(targetName);
    if (!target) {
      throw new TransferTargetError(
        `Agent '${this.name}' asked to transfer to '${targetName}', which is not in its agent tree. Transfer to one of: ${
          transferTargets(this, this)
            .map((a) => a.name)
            .join(', ') || '(none)'
        }.`,
      );
    }
    const shared = ctx.shared;
    const max = shared.runConfig.maxTransfers;
    if (shared.transfers >= max) {
      throw new TransferLimitError(
        `Agent '${this.name}' tried to transfer to '${targetName}' after ${shared.transfers} transfers in this run, the limit set by runConfig.maxTransfers (${max}). Raise the limit or check the agents' instructions for transfers back and forth.`,
      );
    }
    shared.transfers++;
    await target.runInto(ctx, sink);
  }

  private responseEvent(ctx: InvocationContext, response: LlmResponse, model: BaseLlm, partial: boolean): Event {
    const event = this.createEvent(ctx, { model: response.model ?? model.model });
    if (response.content) event.content = { role: 'model', parts: response.content.parts };
    if (partial) event.partial = true;
    return event;
  }
}

/** ADK's name for {@link LlmAgent}. */
export const Agent = LlmAgent;
export type Agent = LlmAgent;

function functionCallsOf(event: Event): FunctionCall[] {
  const calls: FunctionCall[] = [];
  const parts = event.content?.parts;
  if (!parts) return calls;
  // An indexed loop: every model call runs this, and for-of is much more code for the compiler.
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if ('functionCall' in part) calls.push(part.functionCall);
  }
  return calls;
}

function normalizeUsage(usage: Usage | undefined): Usage {
  return usage ?? { inputTokens: 0, outputTokens: 0 };
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) return value.constructor?.name ?? 'object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
