import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV2, LanguageModelV2CallOptions, LanguageModelV2StreamPart } from '@ai-sdk/provider';
import { ConfigurationError } from '@troupe/core';
import { aiSdk, AiSdkLlm } from '@troupe/models/ai-sdk';
import { describe, expect, it } from 'vitest';
import { collect } from './support/collect.js';
import { describeAdapterContract } from './support/contract.js';
import { publishedAdapterContract } from './support/published-contract.js';
import type { WireKit } from './support/kit.js';
import * as wire from './support/openai-wire.js';

// The AI SDK's openai-compatible provider does the HTTP, so the fake server speaks Chat Completions.
const kit: WireKit = {
  label: "AI SDK provider 'compat.chat'",
  provider: 'compat.chat',
  model: (server, options = {}) =>
    aiSdk(
      createOpenAICompatible({
        name: 'compat',
        baseURL: `${server.url}/v1`,
        apiKey: 'sk-test',
        supportsStructuredOutputs: true,
        includeUsage: true,
      }).chatModel('gpt-test'),
      options,
    ),
  ...wire,
};

describeAdapterContract('ai-sdk', kit, { sendsCallIds: true, malformed: 'error-result' });
publishedAdapterContract('AiSdkLlm', kit, (req) => {
  const last = wire
    .messages(req)
    .filter((m) => m.role === 'user')
    .at(-1);
  return typeof last?.content === 'string' ? last.content : '';
});

/** A language model of the older v2 interface (ai 5), answering from a script and recording the calls it gets. */
function v2Model(): LanguageModelV2 & { calls: LanguageModelV2CallOptions[] } {
  const calls: LanguageModelV2CallOptions[] = [];
  return {
    specificationVersion: 'v2',
    provider: 'legacy',
    modelId: 'legacy-1',
    supportedUrls: {},
    calls,
    doGenerate(options) {
      calls.push(options);
      return Promise.resolve({
        content: [
          { type: 'reasoning', text: 'Thinking.' },
          { type: 'text', text: 'Hello from v2.' },
        ],
        finishReason: 'stop',
        usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13, reasoningTokens: 1, cachedInputTokens: 3 },
        warnings: [],
      });
    },
    doStream(options) {
      calls.push(options);
      const parts: LanguageModelV2StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hel' },
        { type: 'text-delta', id: 't', delta: 'lo' },
        { type: 'text-end', id: 't' },
        { type: 'tool-input-start', id: 'c1', toolName: 'f' },
        { type: 'tool-input-delta', id: 'c1', delta: '{"x"' },
        { type: 'tool-input-delta', id: 'c1', delta: ': 1}' },
        { type: 'tool-input-end', id: 'c1' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: '{"x": 1}' },
        { type: 'finish', finishReason: 'length', usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 } },
      ];
      return Promise.resolve({
        stream: new ReadableStream({
          start: (controller) => (parts.forEach((p) => controller.enqueue(p)), controller.close()),
        }),
      });
    },
  };
}

describe('aiSdk with a v2 language model', () => {
  it('maps the conversation to the AI SDK prompt: system, tool calls, tool results, user text', async () => {
    const model = v2Model();
    const [final] = await collect(aiSdk(model), {
      model: 'legacy-1',
      contents: [
        { role: 'user', parts: [{ text: 'Go' }] },
        { role: 'model', parts: [{ functionCall: { id: 'c0', name: 'f', args: { x: 0 } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c0', name: 'f', response: { y: 1 } } }, { text: 'More?' }] },
      ],
      config: {
        systemInstruction: 'Be brief.',
        temperature: 0.5,
        maxOutputTokens: 20,
        responseSchema: { type: 'object' },
        tools: [{ name: 'f', description: 'F.' }],
        providerOptions: { legacy: { mode: 'fast' } },
      },
    });
    expect(final).toMatchObject({
      content: { parts: [{ text: 'Thinking.', thought: true }, { text: 'Hello from v2.' }] },
      usage: { inputTokens: 9, outputTokens: 4, cachedTokens: 3, thoughtTokens: 1 },
      finishReason: 'STOP',
    });
    expect(model.calls[0]).toEqual({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c0', toolName: 'f', input: { x: 0 } }] },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c0', toolName: 'f', output: { type: 'json', value: { y: 1 } } },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'More?' }] },
      ],
      tools: [{ type: 'function', name: 'f', description: 'F.', inputSchema: { type: 'object', properties: {} } }],
      toolChoice: { type: 'auto' },
      responseFormat: { type: 'json', schema: { type: 'object' }, name: 'response' },
      temperature: 0.5,
      maxOutputTokens: 20,
      providerOptions: { legacy: { mode: 'fast' } },
    });
  });

  it('streams v2 parts: text deltas, a call assembled once, flat usage and a string finish reason', async () => {
    const responses = await collect(
      aiSdk(v2Model()),
      { model: 'legacy-1', contents: [{ role: 'user', parts: [{ text: 'Go' }] }], config: {} },
      true,
    );
    expect(responses.filter((r) => r.partial).map((r) => r.content?.parts)).toEqual([
      [{ text: 'Hel' }],
      [{ text: 'lo' }],
    ]);
    expect(responses[responses.length - 1]).toMatchObject({
      content: { parts: [{ text: 'Hello' }, { functionCall: { id: 'c1', name: 'f', args: { x: 1 } } }] },
      usage: { inputTokens: 5, outputTokens: 6 },
      finishReason: 'MAX_TOKENS',
    });
  });

  it('rejects what is not an AI SDK language model, with the fix', () => {
    expect(() => aiSdk('gpt-4o' as unknown as LanguageModelV2)).toThrow(ConfigurationError);
    expect(() => aiSdk('gpt-4o' as unknown as LanguageModelV2)).toThrow(
      /use the provider's function, e.g. openai\('gpt-4o'\)/,
    );
    const v1 = { ...v2Model(), specificationVersion: 'v1' } as unknown as LanguageModelV2;
    expect(() => aiSdk(v1)).toThrow(/specification v2 and v3.*"v1"/);
  });

  it('names the model after its modelId unless told otherwise', () => {
    expect(aiSdk(v2Model()).model).toBe('legacy-1');
    expect(new AiSdkLlm(v2Model(), { name: 'my-model' }).model).toBe('my-model');
  });
});
