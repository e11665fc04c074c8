import { ConfigurationError, resolveModel } from '@troupe/core';
import { AnthropicLlm, anthropic } from '@troupe/models';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAdapterContract } from './support/contract.js';
import { publishedAdapterContract } from './support/published-contract.js';
import { type FakeServer, sse } from './support/fake-server.js';
import type { WireKit } from './support/kit.js';
import { asker, collect } from './support/collect.js';
import { serverPerTest } from './support/server-per-test.js';
import * as wire from './support/anthropic-wire.js';

const kit: WireKit = {
  label: 'Anthropic',
  provider: 'anthropic',
  model: (server, options = {}) => anthropic('claude-test', { apiKey: 'sk-ant-test', baseURL: server.url, ...options }),
  ...wire,
};

describeAdapterContract('anthropic', kit, { sendsCallIds: true, malformed: 'error-result' });
publishedAdapterContract('AnthropicLlm', kit, (req) => {
  const last = wire
    .messages(req)
    .filter((m) => m.role === 'user')
    .at(-1);
  if (typeof last?.content === 'string') return last.content;
  return (last?.content ?? [])
    .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : ''))
    .join('');
});

const ask = asker('claude-test');

describe('anthropic request format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it('sends the Messages body: top-level system, max_tokens, tools and the key', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask(
        {
          systemInstruction: 'You are terse.',
          temperature: 0.3,
          topK: 20,
          stopSequences: ['END'],
          tools: [
            {
              name: 'lookup',
              description: 'Looks things up.',
              parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
            },
          ],
          providerOptions: { anthropic: { thinking: { type: 'enabled', budget_tokens: 1024 } } },
        },
        [{ role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      ),
    );
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    // Older SDKs send the key as x-api-key, newer ones as a Bearer token.
    expect(sent.headers['x-api-key'] ?? sent.headers.authorization).toMatch(/sk-ant-test/);
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      system: 'You are terse.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      tools: [
        {
          name: 'lookup',
          description: 'Looks things up.',
          input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      ],
      temperature: 0.3,
      top_k: 20,
      stop_sequences: ['END'],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      stream: false,
    });
  });

  it('merges consecutive turns and puts all tool results of a turn first in one user message', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask({}, [
        { role: 'user', parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [{ text: 'Calling both.' }, { functionCall: { id: 'toolu_a', name: 'f', args: { x: 1 } } }],
        },
        { role: 'model', parts: [{ functionCall: { id: 'toolu_b', name: 'g', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'toolu_a', name: 'f', response: { y: 2 } } }] },
        { role: 'user', parts: [{ text: '[helper] said: done' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'toolu_b', name: 'g', response: { error: 'g failed' } } }] },
      ]),
    );
    expect(wire.messages(server.requests[0]!)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Calling both.' },
          { type: 'tool_use', id: 'toolu_a', name: 'f', input: { x: 1 } },
          { type: 'tool_use', id: 'toolu_b', name: 'g', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"y":2}' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"error":"g failed"}', is_error: true },
          { type: 'text', text: '[helper] said: done' },
        ],
      },
    ]);
  });

  it('keeps the thinking blocks of a tool-calling turn and sends them back with their signature', async () => {
    server.reply(
      wire.toolCalls([{ id: 'toolu_1', name: 'f', json: '{"x": 1}' }], {
        thought: 'I should call f.',
        signature: 'sig-xyz',
      }),
    );
    const responses = await collect(kit.model(server), ask({ tools: [{ name: 'f', description: 'x' }] }), true);
    const final = responses[responses.length - 1]!;
    expect(final.content!.parts).toEqual([
      { text: 'I should call f.', thought: true },
      {
        functionCall: { id: 'toolu_1', name: 'f', args: { x: 1 } },
        anthropicThinking: [{ type: 'thinking', thinking: 'I should call f.', signature: 'sig-xyz' }],
      },
    ]);
    // The agent's history drops thought parts; the call part carries what the API needs.
    const callPart = final.content!.parts[1]!;
    server.reply(wire.text('done'));
    await collect(
      kit.model(server),
      ask({ tools: [{ name: 'f', description: 'x' }] }, [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [callPart] },
        { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'f', response: { ok: true } } }] },
      ]),
    );
    expect(wire.messages(server.requests[1]!)[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should call f.', signature: 'sig-xyz' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: { x: 1 } },
      ],
    });
  });

  it('opens with a user message when the history starts with the model', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask({}, [
        { role: 'model', parts: [{ text: 'Earlier answer.' }] },
        { role: 'user', parts: [{ text: 'And now?' }] },
      ]),
    );
    expect(wire.messages(server.requests[0]!).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('closes every object of the output schema and lets maxOutputTokens set max_tokens', async () => {
    server.reply(wire.text('{"a":{"b":1}}'));
    const schema = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'number' } } } } };
    await collect(
      anthropic('claude-test', { apiKey: 'k', baseURL: server.url, maxTokens: 1000 }),
      ask({ responseSchema: schema, maxOutputTokens: 64 }),
    );
    expect(server.requests[0]!.body).toMatchObject({
      max_tokens: 64,
      output_config: {
        format: {
          type: 'json_schema',
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { a: { type: 'object', additionalProperties: false, properties: { b: { type: 'number' } } } },
          },
        },
      },
    });
  });

  it('retries an overloaded_error event that ends the stream before any text', async () => {
    server.reply(
      sse([
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}`,
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}`,
      ]),
      wire.text('Second try.'),
    );
    const responses = await collect(kit.model(server, { retry: { initialDelayMs: 1, jitter: false } }), ask(), true);
    expect(responses[responses.length - 1]!.content!.parts).toEqual([{ text: 'Second try.' }]);
    expect(server.requests).toHaveLength(2);
  });
});

describe('anthropic keys and model strings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('names ANTHROPIC_API_KEY when no key is set', async () => {
    delete process.env.ANTHROPIC_API_KEY;
    const error: unknown = await collect(anthropic('claude-sonnet-4-5'), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/ANTHROPIC_API_KEY.*apiKey/);
  });

  it('resolves anthropic/<model>', () => {
    const model = resolveModel('anthropic/claude-sonnet-4-5');
    expect(model).toBeInstanceOf(AnthropicLlm);
    expect(model.model).toBe('claude-sonnet-4-5');
  });

  it('rejects a bad maxTokens with the value and the fix', () => {
    expect(() => anthropic('claude-x', { maxTokens: 0 })).toThrow(
      /maxTokens is 0; use a whole number of tokens, at least 1/,
    );
  });
});
