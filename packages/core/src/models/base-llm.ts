import type { LlmRequest, LlmResponse } from './llm-request.js';

/**
 * A model. Implementations yield one response, or with `stream` a series of `partial`
 * chunks followed by the complete response.
 */
export abstract class BaseLlm {
  constructor(readonly model: string) {}

  abstract generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse>;
}

/** Type guard for a model object. */
export function isBaseLlm(value: unknown): value is BaseLlm {
  return (
    value instanceof BaseLlm ||
    (typeof value === 'object' && value !== null && typeof (value as BaseLlm).generateContentAsync === 'function')
  );
}
