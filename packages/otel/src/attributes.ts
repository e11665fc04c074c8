import type { Attributes } from '@opentelemetry/api';
import type { LlmRequest, LlmResponse, RunResult, Usage } from '@troupe/core';

/**
 * The attribute names the plugin writes. `gen_ai.*` names follow the OpenTelemetry GenAI semantic
 * conventions (development status); `troupe.*` names carry what those conventions have no name for.
 */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  conversationId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  agentDescription: 'gen_ai.agent.description',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestTopP: 'gen_ai.request.top_p',
  requestTopK: 'gen_ai.request.top_k',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestSeed: 'gen_ai.request.seed',
  requestStopSequences: 'gen_ai.request.stop_sequences',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolDescription: 'gen_ai.tool.description',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
  httpStatusCode: 'http.response.status_code',
  // Content, only with captureContent.
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  // Troupe's own.
  invocationId: 'troupe.invocation.id',
  invocationAgent: 'troupe.invocation.agent',
  invocationEntryAgent: 'troupe.invocation.entry_agent',
  appName: 'troupe.app.name',
  agentPath: 'troupe.agent.path',
  agentBranch: 'troupe.agent.branch',
  agentType: 'troupe.agent.type',
  agentKind: 'troupe.agent.kind',
  agentResumed: 'troupe.agent.resumed',
  resumed: 'troupe.invocation.resumed',
  runStatus: 'troupe.run.status',
  runStopReason: 'troupe.run.stop_reason',
  runOutput: 'troupe.run.output',
  runUsageInputTokens: 'troupe.usage.input_tokens',
  runUsageOutputTokens: 'troupe.usage.output_tokens',
  usageCachedTokens: 'troupe.usage.cached_tokens',
  usageCacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  usageThoughtTokens: 'troupe.usage.thought_tokens',
  nodeName: 'troupe.node.name',
  nodePath: 'troupe.node.path',
  nodeRunId: 'troupe.node.run_id',
  nodeAttempt: 'troupe.node.attempt',
  nodeRoute: 'troupe.node.route',
  nodeResumed: 'troupe.node.resumed',
  nodeWaiting: 'troupe.node.waiting',
  nodeInput: 'troupe.node.input',
  nodeOutput: 'troupe.node.output',
  interruptId: 'troupe.interrupt.id',
  interruptKind: 'troupe.interrupt.kind',
  endReason: 'troupe.span.end_reason',
} as const;

/**
 * Why the plugin ended a span that the hook which normally ends it never reached:
 * - `superseded`: a later step began where this one had to be finished first (a model call a
 *   before-model callback answered; an agent a before-agent callback skipped, or one a RoutedAgent
 *   retried after it failed);
 * - `parent_ended`: its parent agent finished while it was still open (same causes);
 * - `failed`, `cancelled`, `limit`: the agent (or the agent it was under) ended so, as its
 *   afterAgent outcome said;
 * - `interrupted`, `failed`, `cancelled`, `limit`, `completed`: still open when the run ended so.
 */
export type EndReason = 'superseded' | 'parent_ended' | RunResult['status'];

/** The provider of a model string, when it can be told from the name (`openai/…`, `gpt-…`, `claude-…`, `gemini-…`). */
export function providerOf(model: string): string | undefined {
  const slash = model.indexOf('/');
  if (slash > 0) return model.slice(0, slash);
  if (/^(gpt-|o\d|chatgpt-)/.test(model)) return 'openai';
  if (model.startsWith('claude')) return 'anthropic';
  if (model.startsWith('gemini')) return 'gcp.gemini';
  return undefined;
}

/** The attributes of a model request that are not content. */
export function requestAttributes(request: LlmRequest, attributes: Attributes): void {
  const config = request.config;
  setNumber(attributes, ATTR.requestTemperature, config.temperature);
  setNumber(attributes, ATTR.requestTopP, config.topP);
  setNumber(attributes, ATTR.requestTopK, config.topK);
  setNumber(attributes, ATTR.requestMaxTokens, config.maxOutputTokens);
  setNumber(attributes, ATTR.requestSeed, config.seed);
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0)
    attributes[ATTR.requestStopSequences] = [...config.stopSequences];
}

/** The attributes of a model response that are not content. */
export function responseAttributes(response: LlmResponse, requestModel: string): Attributes {
  const attributes: Attributes = { [ATTR.responseModel]: response.model ?? requestModel };
  if (response.finishReason) attributes[ATTR.responseFinishReasons] = [response.finishReason];
  if (response.usage) usageAttributes(response.usage, attributes);
  return attributes;
}

function usageAttributes(usage: Usage, attributes: Attributes): void {
  attributes[ATTR.usageInputTokens] = usage.inputTokens;
  attributes[ATTR.usageOutputTokens] = usage.outputTokens;
  if (usage.cachedTokens !== undefined) {
    attributes[ATTR.usageCachedTokens] = usage.cachedTokens;
    attributes[ATTR.usageCacheReadTokens] = usage.cachedTokens;
  }
  if (usage.cacheWriteTokens !== undefined) attributes[ATTR.usageCacheCreationTokens] = usage.cacheWriteTokens;
  if (usage.thoughtTokens !== undefined) attributes[ATTR.usageThoughtTokens] = usage.thoughtTokens;
}

/** Run-level attributes set on the invocation span when the run ends. */
export function runAttributes(result: RunResult): Attributes {
  const attributes: Attributes = {
    [ATTR.runStatus]: result.status,
    [ATTR.runUsageInputTokens]: result.usage.inputTokens,
    [ATTR.runUsageOutputTokens]: result.usage.outputTokens,
  };
  if (result.stopReason) attributes[ATTR.runStopReason] = result.stopReason;
  return attributes;
}

function setNumber(attributes: Attributes, key: string, value: unknown): void {
  if (typeof value === 'number' && Number.isFinite(value)) attributes[key] = value;
}
