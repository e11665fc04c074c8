import { expect, it } from 'vitest';
import { BaseLlm, InMemoryRunner, LlmAgent, type LlmResponse } from '@troupe/core';

// Reported: the Gemini adapter's MAX_TOKENS failure read "... before answering.." — the provider's
// message ends with a period and the runner's sentence added another.
class StopsAtMaxTokens extends BaseLlm {
  constructor() {
    super('gemini-test');
  }
  async *generateContentAsync(): AsyncGenerator<LlmResponse> {
    yield {
      errorCode: 'MAX_TOKENS',
      errorMessage: 'The model stopped with MAX_TOKENS before answering.',
      finishReason: 'MAX_TOKENS',
    };
  }
}

it('a model error message ends with exactly one period', async () => {
  const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'Writer', model: new StopsAtMaxTokens() }) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'write' });
  expect(result.status).toBe('failed');
  expect(result.error!.message).toBe(
    "Model 'gemini-test' answered agent 'Writer' with error MAX_TOKENS: The model stopped with MAX_TOKENS before answering.",
  );
  expect(result.events.at(-1)!.errorMessage).not.toMatch(/\.\.$/);
});
