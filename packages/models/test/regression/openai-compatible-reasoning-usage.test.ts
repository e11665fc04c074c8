import type { LlmResponse } from '@troupe/core';
import { openaiCompatible } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { asker, collect } from '../support/collect.js';
import { json, sse, type FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';

/**
 * Issue #28, item 4. OpenAI counts reasoning inside `completion_tokens` (its
 * `completion_tokens_details.reasoning_tokens` is a subset); xAI counts it apart ("reasoning token
 * consumption will be counted separately from completion_tokens, but will be counted in the
 * total_tokens"). Troupe's `outputTokens` is everything generated, thinking included, whichever
 * accounting the server uses.
 */

/** A real grok-3-mini reply's usage: 26 answer tokens, 189 reasoning tokens, total = 12 + 26 + 189. */
const XAI_USAGE = {
  prompt_tokens: 12,
  completion_tokens: 26,
  total_tokens: 227,
  prompt_tokens_details: { text_tokens: 12, audio_tokens: 0, image_tokens: 0, cached_tokens: 4 },
  completion_tokens_details: {
    reasoning_tokens: 189,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
  num_sources_used: 0,
};

/** The same turn as OpenAI reports it: the 189 reasoning tokens are part of completion_tokens. */
const OPENAI_USAGE = {
  prompt_tokens: 12,
  completion_tokens: 215,
  total_tokens: 227,
  prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 189,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

const EXPECTED = { inputTokens: 12, outputTokens: 215, cachedTokens: 4, thoughtTokens: 189 };

const base = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'grok-3-mini' };

function completion(usage: Record<string, unknown>) {
  return json(200, {
    ...base,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Paris.', reasoning_content: 'The capital of France is Paris.' },
        finish_reason: 'stop',
      },
    ],
    usage,
  });
}

function stream(usage: Record<string, unknown>) {
  const frame = (body: Record<string, unknown>) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...body })}`;
  return sse([
    frame({ choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'The capital is Paris.' } }] }),
    frame({ choices: [{ index: 0, delta: { content: 'Paris.' } }] }),
    frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    // xAI and OpenAI both send the usage on a last chunk without choices.
    frame({ choices: [], usage }),
    'data: [DONE]',
  ]);
}

const ask = asker('grok-3-mini');

describe('openaiCompatible usage with reasoning tokens', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  const model = () => openaiCompatible('grok-3-mini', { name: 'xai', baseURL: `${server.url}/v1` });
  const last = (responses: LlmResponse[]) => responses.at(-1)!;

  for (const [style, usage] of [
    ['xAI (reasoning counted apart)', XAI_USAGE],
    ['OpenAI (reasoning inside completion_tokens)', OPENAI_USAGE],
  ] as const) {
    it(`counts thinking in outputTokens, non-streamed, ${style}`, async () => {
      server.reply(completion(usage));
      const response = last(await collect(model(), ask()));
      expect(response.usage).toEqual(EXPECTED);
    });

    it(`counts thinking in outputTokens, streamed, ${style}`, async () => {
      server.reply(stream(usage));
      const response = last(await collect(model(), ask(), true));
      expect(response.partial).toBeFalsy();
      expect(response.usage).toEqual(EXPECTED);
    });
  }

  it('reads reasoning larger than completion_tokens as counted apart even without total_tokens', async () => {
    const { total_tokens: _total, ...withoutTotal } = XAI_USAGE;
    server.reply(completion(withoutTotal));
    const response = last(await collect(model(), ask()));
    expect(response.usage).toEqual(EXPECTED);
  });

  it('keeps a reply without reasoning tokens as it is', async () => {
    server.reply(completion({ prompt_tokens: 12, completion_tokens: 26, total_tokens: 38 }));
    const response = last(await collect(model(), ask()));
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 26 });
  });
});
