import { ModelError, withRetry, type BaseLlm, type LlmRequest, type RetryOptions } from '@troupe/core';
import { DEFAULT_RETRY } from '../shared/provider-llm.js';

/** Runs one attempt of a call; the policy decides whether and when to run it again. */
export type RetryingCall = <T>(attempt: () => Promise<T>, signal: AbortSignal | undefined) => Promise<T>;

const NO_REQUEST: LlmRequest = { model: '', contents: [], config: {} };

/**
 * The chat adapters' retry policy (`withRetry` over {@link DEFAULT_RETRY}: 429, 408, 409, 5xx and
 * network errors, backoff with jitter, `Retry-After` honoured, the abort signal ends the waits) for
 * a call that is not a chat turn. Bad retry options fail here, when the embedder is made.
 */
export function retryingCall(name: string, retry: RetryOptions | false | undefined): RetryingCall {
  if (retry === false) return (attempt) => attempt();
  const options = { ...DEFAULT_RETRY, ...retry };
  // Built once now so that invalid options are a ConfigurationError from the factory, not from embed().
  withRetry(
    callAsModel(name, () => Promise.resolve()),
    options,
  );
  return async <T>(attempt: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
    let result: { value: T } | undefined;
    const model = withRetry(
      callAsModel(name, async () => {
        result = { value: await attempt() };
      }),
      options,
    );
    // withRetry is written for models: the call runs as a model whose one response is "done".
    for await (const response of model.generateContentAsync(NO_REQUEST, false, signal)) void response;
    if (result === undefined) throw new ModelError(`${name}: the call ended without a result.`);
    return result.value;
  };
}

function callAsModel(name: string, run: () => Promise<void>): BaseLlm {
  return {
    model: name,
    async *generateContentAsync() {
      await run();
      yield { turnComplete: true };
    },
  };
}
