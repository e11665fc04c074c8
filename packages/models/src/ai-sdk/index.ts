/**
 * Any Vercel AI SDK language model as a Troupe model.
 * @packageDocumentation
 */
export { AiSdkLlm, aiSdk, type AiSdkLanguageModel, type AiSdkOptions } from './ai-sdk-llm.js';
export { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
export type { ProviderLlmOptions } from '../shared/provider-llm.js';
