import { BaseLlm, LlmAgent, type LlmRequest, type LlmResponse } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { only, runOn, tracedRunner } from './helpers.js';

/** A model whose provider reports cache reads and writes, as Anthropic does with contextCache. */
class CachingModel extends BaseLlm {
  constructor() {
    super('claude-test');
  }
  async *generateContentAsync(_request: LlmRequest): AsyncGenerator<LlmResponse> {
    yield {
      content: { role: 'model', parts: [{ text: 'Cached answer.' }] },
      usage: { inputTokens: 3000, outputTokens: 5, cachedTokens: 2400, cacheWriteTokens: 500 },
      finishReason: 'STOP',
    };
  }
}

describe('prompt cache usage in a trace', () => {
  it('the chat span carries cache reads and writes under the GenAI names', async () => {
    const agent = new LlmAgent({ name: 'Writer', model: new CachingModel(), contextCache: true });
    const { exporter, runner } = tracedRunner(agent);
    const result = await runOn(runner, 'write');
    expect(result.usage.byAgent.Writer).toMatchObject({ cachedTokens: 2400, cacheWriteTokens: 500 });
    const chat = only(exporter.getFinishedSpans(), 'chat claude-test');
    expect(chat.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 3000,
      'gen_ai.usage.cache_read.input_tokens': 2400,
      'gen_ai.usage.cache_creation.input_tokens': 500,
    });
  });
});
