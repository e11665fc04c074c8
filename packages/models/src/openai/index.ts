/**
 * OpenAI and OpenAI-compatible models (Ollama, vLLM, LM Studio, ...) on the Chat Completions API,
 * and OpenAI models on the Responses API (`openai.responses()`).
 * @packageDocumentation
 */
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
} from './openai-llm.js';
export { OpenAiResponsesLlm, openaiResponses, type OpenAiResponsesOptions } from './responses/responses-llm.js';
export type { ResponsesBuiltinTool } from './responses/request.js';
export { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
export type { ProviderLlmOptions } from '../shared/provider-llm.js';
