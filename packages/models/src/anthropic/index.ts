/**
 * Claude models through the Anthropic Messages API.
 * @packageDocumentation
 */
export { AnthropicLlm, anthropic, type AnthropicOptions } from './anthropic-llm.js';
export { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
export type { ProviderLlmOptions } from '../shared/provider-llm.js';
