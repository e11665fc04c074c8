/**
 * Troupe model providers. Importing this module registers the model strings `openai/<model>`,
 * `openai-responses/<model>` (OpenAI's Responses API), `gemini/<model>` (and bare `gemini-*`),
 * `anthropic/<model>`, `ollama/<model>` and `openai-compatible/<model>` (base URL from
 * `OPENAI_COMPATIBLE_BASE_URL`), so agents can name their model as a string. Each provider's SDK
 * is an optional peer dependency, loaded on first use.
 * @packageDocumentation
 */
import { registerModel } from '@troupe/core';
import { anthropic } from './anthropic/anthropic-llm.js';
import { gemini } from './gemini/gemini-llm.js';
import { ollama, openai, openaiCompatible } from './openai/openai-llm.js';
import { openaiResponses } from './openai/responses/responses-llm.js';

registerModel('openai/', (model) => openai(model));
registerModel('openai-responses/', (model) => openaiResponses(model));
registerModel('gemini/', (model) => gemini(model));
registerModel(/^gemini-/, (model) => gemini(model));
registerModel('anthropic/', (model) => anthropic(model));
registerModel('ollama/', (model) => ollama(model));
registerModel('openai-compatible/', (model) => openaiCompatible(model));

export {
  OpenAiLlm,
  openai,
  ollama,
  openaiCompatible,
  ollamaBaseUrl,
  type OpenAiOptions,
  type OllamaOptions,
  type OpenAiCompatibleOptions,
  type OpenAiFlavor,
} from './openai/openai-llm.js';
export { OpenAiResponsesLlm, openaiResponses, type OpenAiResponsesOptions } from './openai/responses/responses-llm.js';
export type { ResponsesBuiltinTool } from './openai/responses/request.js';
export { GeminiLlm, gemini, type GeminiOptions } from './gemini/gemini-llm.js';
export type { GeminiStructuredOutput } from './gemini/request.js';
export { AnthropicLlm, anthropic, type AnthropicOptions } from './anthropic/anthropic-llm.js';
export { AiSdkLlm, aiSdk, type AiSdkLanguageModel, type AiSdkOptions } from './ai-sdk/ai-sdk-llm.js';
export {
  ProviderLlm,
  DEFAULT_RETRY,
  checkModelName,
  type ProviderLlmOptions,
  type FailurePhase,
  type StreamAccumulator,
  type StreamTurnOptions,
} from './shared/provider-llm.js';
export { openaiEmbedder, type OpenAiEmbedderOptions } from './embeddings/openai-embedder.js';
export {
  geminiEmbedder,
  type GeminiEmbedderOptions,
  type GeminiEmbeddingTaskType,
} from './embeddings/gemini-embedder.js';
export { ollamaEmbedder, type OllamaEmbedderOptions } from './embeddings/ollama-embedder.js';
export { aiSdkEmbedder, type AiSdkEmbeddingModel, type AiSdkEmbedderOptions } from './embeddings/ai-sdk-embedder.js';
export type { EmbedderOptions, HttpEmbedderOptions } from './embeddings/embedder-options.js';
export { ProviderError, type FailureDetails, type ProviderIdentity } from './shared/errors.js';
export { requireApiKey } from './shared/env.js';
export { ResponseBuilder } from './shared/response-builder.js';
export { MALFORMED_ARGUMENTS_KEY } from './shared/tool-arguments.js';
