/**
 * Gemini models through `@google/genai` (Gemini API and Vertex AI).
 * @packageDocumentation
 */
export { GeminiLlm, gemini, type GeminiOptions } from './gemini-llm.js';
export type { GeminiStructuredOutput } from './request.js';
export { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
export type { ProviderLlmOptions } from '../shared/provider-llm.js';
