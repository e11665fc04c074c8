/**
 * OpenAI and OpenAI-compatible models (Ollama, vLLM, LM Studio, ...) on the Chat Completions API.
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
export { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
export type { ProviderLlmOptions } from '../shared/provider-llm.js';
