import type { Content } from '../../events/content.js';
import { ModelError, RunLimitError, TroupeError } from '../../errors.js';
import type { BaseLlm } from '../../models/base-llm.js';
import type { LlmRequest, LlmResponse } from '../../models/llm-request.js';
import { firstResult, type OneOrMany } from '../../runner/plugin-manager.js';
import { CallbackContext } from '../callback-context.js';
import { generatorOf } from '../event-sink.js';
import type { InvocationContext } from '../invocation-context.js';

type MaybeResponse = LlmResponse | undefined | void | Promise<LlmResponse | undefined | void>;

/** Runs before a model call; returning a response skips the model. */
export type BeforeModelCallback = (params: { context: CallbackContext; request: LlmRequest }) => MaybeResponse;
/** Runs after a model call; returning a response replaces it. */
export type AfterModelCallback = (params: { context: CallbackContext; response: LlmResponse }) => MaybeResponse;

export interface ModelCallbacks {
  beforeModelCallback: OneOrMany<BeforeModelCallback> | undefined;
  afterModelCallback: OneOrMany<AfterModelCallback> | undefined;
}

/** The final response of a model call, whether it came from a callback, and the callbacks' context (if any ran). */
export interface ModelCallResult {
  response: LlmResponse;
  fromModel: boolean;
  /** Present when a callback or plugin saw the call; its state writes and actions go on the event. */
  context: CallbackContext | undefined;
}

/**
 * Calls the model with plugins and callbacks around it, enforcing the run's call and token limits.
 * Hands streamed chunks (partial responses) to `onPartial`, each awaited, and returns the final response.
 */
export async function callModel(
  ctx: InvocationContext,
  model: BaseLlm,
  request: LlmRequest,
  callbacks: ModelCallbacks,
  onPartial: (chunk: LlmResponse) => Promise<void>,
): Promise<ModelCallResult> {
  // What is rare (callbacks, plugins, a limit reached) is in functions of their own: the optimizing
  // compiler compiles this one for every agent, and most model calls have none of it.
  const cb = callbackContext(ctx, callbacks);
  const early = cb && (await beforeModel(cb, callbacks, request));
  if (early) return { response: early, fromModel: false, context: cb };
  countCall(ctx);
  let response: LlmResponse | undefined;
  try {
    let streamedText = '';
    let streamed = false;
    // A routed model reports its failed attempts on its first chunk; the final response keeps them.
    let failedAttempts: LlmResponse['failedAttempts'];
    for await (const chunk of model.generateContentAsync(
      request,
      ctx.shared.runConfig.streaming === 'sse',
      ctx.abortSignal,
    )) {
      failedAttempts ??= chunk.failedAttempts;
      if (chunk.partial) {
        streamed = true;
        streamedText += textOf(chunk.content);
        await onPartial(chunk);
        continue;
      }
      response = chunk;
    }
    // A stream that ended without a final aggregate: build it from the chunks.
    response ??= streamed
      ? { content: { role: 'model', parts: [{ text: streamedText }] }, turnComplete: true }
      : { content: { role: 'model', parts: [] } };
    if (failedAttempts && !response.failedAttempts) response = { ...response, failedAttempts };
    if (response.errorCode) throw errorResponse(response, model, ctx);
  } catch (error) {
    if (ctx.abortSignal.aborted) throw ctx.abortSignal.reason;
    const recovered = cb && (await ctx.shared.plugins.run('onModelError', { context: cb, request, error }));
    if (!recovered) throw asModelError(error, model, ctx.agent.name);
    response = recovered;
  }
  const replaced = cb && (await afterModel(cb, callbacks, response));
  return { response: replaced ?? response, fromModel: true, context: cb };
}

/** The context callbacks and plugins of a model call see; undefined when none will (most calls). */
function callbackContext(ctx: InvocationContext, callbacks: ModelCallbacks): CallbackContext | undefined {
  const plugins = ctx.shared.plugins;
  return callbacks.beforeModelCallback ||
    callbacks.afterModelCallback ||
    plugins.has('beforeModel') ||
    plugins.has('afterModel') ||
    plugins.has('onModelError')
    ? new CallbackContext(ctx)
    : undefined;
}

/** The plugins' then the agent's before-model callbacks: a response from one skips the model. */
async function beforeModel(
  cb: CallbackContext,
  callbacks: ModelCallbacks,
  request: LlmRequest,
): Promise<LlmResponse | undefined> {
  const plugins = cb.invocationContext.shared.plugins;
  return (
    (await plugins.run('beforeModel', { context: cb, request })) ??
    (await firstResult(callbacks.beforeModelCallback, { context: cb, request })) ??
    undefined
  );
}

/** The plugins' then the agent's after-model callbacks: a response from one replaces the model's. */
async function afterModel(
  cb: CallbackContext,
  callbacks: ModelCallbacks,
  response: LlmResponse,
): Promise<LlmResponse | undefined> {
  const plugins = cb.invocationContext.shared.plugins;
  return (
    (await plugins.run('afterModel', { context: cb, response })) ??
    (await firstResult(callbacks.afterModelCallback, { context: cb, response })) ??
    undefined
  );
}

/** Counts a model call about to be made; RunLimitError when the run has used up its calls or its tokens. */
function countCall(ctx: InvocationContext): void {
  const shared = ctx.shared;
  const { maxLlmCalls, maxTokens } = shared.runConfig;
  if (shared.llmCalls >= maxLlmCalls) {
    throw new RunLimitError(
      'maxLlmCalls',
      `The run reached ${maxLlmCalls} model calls, the limit set by runConfig.maxLlmCalls, before agent '${ctx.agent.name}' could call its model. Raise the limit, or check for a loop that never ends.`,
    );
  }
  const used = shared.usage.inputTokens + shared.usage.outputTokens;
  if (maxTokens !== undefined && used >= maxTokens) {
    throw new RunLimitError(
      'maxTokens',
      `The run used ${used} tokens, reaching runConfig.maxTokens (${maxTokens}). Raise the limit to let agent '${ctx.agent.name}' go on.`,
    );
  }
  shared.llmCalls++;
}

/** The error a model's response carries, as a ModelError naming the model and the agent. */
function errorResponse(response: LlmResponse, model: BaseLlm, ctx: InvocationContext): ModelError {
  // Providers' messages usually end with a period already; the sentence gets exactly one.
  const detail = (response.errorMessage ?? 'no message').replace(/\.+$/, '');
  return new ModelError(
    `Model '${model.model}' answered agent '${ctx.agent.name}' with error ${response.errorCode}: ${detail}.`,
  );
}

/**
 * {@link callModel} as a generator of its partial chunks, returning its result: for holdUntil,
 * which holds the chunks back until the agent's input guardrails pass.
 */
export function modelCallChunks(
  ctx: InvocationContext,
  model: BaseLlm,
  request: LlmRequest,
  callbacks: ModelCallbacks,
): AsyncGenerator<LlmResponse, ModelCallResult, undefined> {
  return generatorOf<LlmResponse, ModelCallResult>((push) => callModel(ctx, model, request, callbacks, push));
}

function textOf(content: Content | undefined): string {
  let text = '';
  for (const part of content?.parts ?? []) if ('text' in part && !part.thought) text += part.text;
  return text;
}

function asModelError(error: unknown, model: BaseLlm, agentName: string): Error {
  if (error instanceof TroupeError) return error;
  const status =
    typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`Model '${model.model}' failed for agent '${agentName}': ${message}`, {
    ...(status === undefined ? {} : { status }),
    cause: error,
  });
}
