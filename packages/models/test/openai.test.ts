import { ConfigurationError, resolveModel, type LlmRequest } from '@troupe/core';
import { MALFORMED_ARGUMENTS_KEY, OpenAiLlm, ollamaBaseUrl, openai, openaiCompatible } from '@troupe/models';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAdapterContract } from './support/contract.js';
import { publishedAdapterContract } from './support/published-contract.js';
import type { FakeServer } from './support/fake-server.js';
import type { WireKit } from './support/kit.js';
import { collect } from './support/collect.js';
import { serverPerTest } from './support/server-per-test.js';
import * as wire from './support/openai-wire.js';

const kit: WireKit = {
  label: 'OpenAI',
  provider: 'openai',
  model: (server, options = {}) => openai('gpt-test', { apiKey: 'sk-test', baseURL: `${server.url}/v1`, ...options }),
  ...wire,
};

describeAdapterContract('openai', kit, { sendsCallIds: true, malformed: 'error-result' });
publishedAdapterContract('OpenAiLlm', kit, (req) => {
  const last = wire
    .messages(req)
    .filter((m) => m.role === 'user')
    .at(-1);
  return typeof last?.content === 'string' ? last.content : '';
});

describe('openai request format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it('sends the Chat Completions body: system message, sampling settings, tools and the key', async () => {
    server.reply(wire.text('ok'));
    const model = kit.model(server);
    await collect(model, {
      model: 'gpt-test',
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
      ],
      config: {
        systemInstruction: 'You are terse.',
        temperature: 0.3,
        topP: 0.9,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        seed: 7,
        tools: [
          {
            name: 'lookup',
            description: 'Looks things up.',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        ],
        providerOptions: { openai: { reasoning_effort: 'low' }, anthropic: { ignored: true } },
      },
    });
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Looks things up.',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_completion_tokens: 256,
      stop: ['END'],
      seed: 7,
      reasoning_effort: 'low',
      stream: false,
    });
  });

  it('asks for usage in streams', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      { model: 'gpt-test', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} },
      true,
    );
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('puts tool messages right after the assistant call, then the merged user text, and drops thoughts', async () => {
    server.reply(wire.text('ok'));
    await collect(kit.model(server), {
      model: 'gpt-test',
      contents: [
        { role: 'user', parts: [{ text: 'Go' }] },
        {
          role: 'model',
          parts: [
            { text: 'Planning.', thought: true },
            { text: 'Calling.' },
            { functionCall: { id: 'call_a', name: 'f', args: { x: 1 } } },
          ],
        },
        { role: 'user', parts: [{ text: '[other] said: hi' }] },
        { role: 'user', parts: [{ functionResponse: { id: 'call_a', name: 'f', response: { y: 2 } } }] },
      ],
      config: {},
    });
    expect(wire.messages(server.requests[0]!)).toEqual([
      { role: 'user', content: 'Go' },
      {
        role: 'assistant',
        content: 'Calling.',
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"y":2}' },
      { role: 'user', content: '[other] said: hi' },
    ]);
  });

  it('sends a strict json_schema response format when the schema allows it, a lenient one otherwise', async () => {
    server.reply(wire.text('{}'), wire.text('{}'));
    const strict = {
      title: 'City info',
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const lenient = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] };
    const model = kit.model(server);
    await collect(model, {
      model: 'gpt-test',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: { responseSchema: strict },
    });
    await collect(model, {
      model: 'gpt-test',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: { responseSchema: lenient },
    });
    expect(server.requests[0]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'City_info', schema: strict, strict: true },
    });
    expect(server.requests[1]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: lenient, strict: false },
    });
  });

  it("writes the schema into the system message with structuredOutput: 'instruction'", async () => {
    server.reply(wire.text('{}'));
    const model = openai('gpt-test', { apiKey: 'k', baseURL: `${server.url}/v1`, structuredOutput: 'instruction' });
    await collect(model, {
      model: 'gpt-test',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: { systemInstruction: 'Base.', responseSchema: { type: 'object' } },
    });
    expect(server.requests[0]!.body.response_format).toBeUndefined();
    expect(wire.system(server.requests[0]!)).toBe(
      'Base.\n\nGive your final answer as a single JSON value, with no other text and no code fences, that matches this JSON Schema:\n{"type":"object"}',
    );
  });

  it('keeps malformed argument JSON under the marker key', async () => {
    server.reply(wire.malformedCall('f', '{"x": '));
    const [final] = await collect(kit.model(server), {
      model: 'gpt-test',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: {},
    });
    expect(final!.content!.parts).toEqual([
      { functionCall: { id: 'call_broken', name: 'f', args: { [MALFORMED_ARGUMENTS_KEY]: '{"x": ' } } },
    ]);
  });

  it('maps length and content_filter finish reasons', async () => {
    server.reply((res, req) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-test',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Trunc' }, finish_reason: 'length' }],
        }),
      );
      void req;
    });
    server.reply((res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-test',
          choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' }],
        }),
      );
    });
    const model = kit.model(server);
    const request: LlmRequest = { model: 'gpt-test', contents: [{ role: 'user', parts: [{ text: 'x' }] }], config: {} };
    const [truncated] = await collect(model, request);
    const [filtered] = await collect(model, request);
    expect(truncated).toMatchObject({ finishReason: 'MAX_TOKENS', content: { parts: [{ text: 'Trunc' }] } });
    expect(truncated!.errorCode).toBeUndefined();
    expect(filtered).toMatchObject({ finishReason: 'SAFETY', errorCode: 'SAFETY' });
  });
});

describe('openai keys and presets', () => {
  const saved = { ...process.env };
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  afterEach(() => {
    process.env = { ...saved };
  });

  it('names OPENAI_API_KEY when no key is set', async () => {
    delete process.env.OPENAI_API_KEY;
    const error: unknown = await collect(openai('gpt-4o-mini'), {
      model: 'gpt-4o-mini',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: {},
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/OPENAI_API_KEY.*apiKey/);
  });

  it('reads the key from OPENAI_API_KEY', async () => {
    process.env.OPENAI_API_KEY = 'sk-from-env';
    server.reply(wire.text('ok'));
    await collect(openai('gpt-test', { baseURL: `${server.url}/v1` }), {
      model: 'gpt-test',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: {},
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
  });

  it('resolves ollama/<model> to the Ollama server at OLLAMA_HOST, without a key, with max_tokens', async () => {
    delete process.env.OPENAI_API_KEY;
    process.env.OLLAMA_HOST = server.url;
    server.reply(wire.text('Hello from llama'));
    const model = resolveModel('ollama/llama3.2');
    expect(model).toBeInstanceOf(OpenAiLlm);
    expect(model.model).toBe('llama3.2');
    const [final] = await collect(model, {
      model: 'llama3.2',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: { maxOutputTokens: 50 },
    });
    expect(final!.content!.parts).toEqual([{ text: 'Hello from llama' }]);
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(server.requests[0]!.body).toMatchObject({ model: 'llama3.2', max_tokens: 50 });
  });

  it('builds the Ollama URL from the forms OLLAMA_HOST takes', () => {
    expect(ollamaBaseUrl(undefined)).toBe('http://127.0.0.1:11434/v1');
    expect(ollamaBaseUrl('0.0.0.0')).toBe('http://0.0.0.0:11434/v1');
    expect(ollamaBaseUrl('gpu-box:8080')).toBe('http://gpu-box:8080/v1');
    expect(ollamaBaseUrl('https://ollama.example.com/')).toBe('https://ollama.example.com/v1');
    expect(ollamaBaseUrl('http://localhost:11434/v1')).toBe('http://localhost:11434/v1');
  });

  it('resolves openai/<model> and openai-compatible/<model> model strings', async () => {
    process.env.OPENAI_API_KEY = 'sk-x';
    expect(resolveModel('openai/gpt-4o-mini')).toBeInstanceOf(OpenAiLlm);
    delete process.env.OPENAI_COMPATIBLE_BASE_URL;
    expect(() => resolveModel('openai-compatible/qwen')).toThrow(/OPENAI_COMPATIBLE_BASE_URL/);
    process.env.OPENAI_COMPATIBLE_BASE_URL = `${server.url}/v1`;
    server.reply(wire.text('compatible'));
    const [final] = await collect(resolveModel('openai-compatible/qwen'), {
      model: 'qwen',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: {},
    });
    expect(final!.content!.parts).toEqual([{ text: 'compatible' }]);
    expect(server.requests[0]!.body.model).toBe('qwen');
  });

  it('names the compatible server in errors', async () => {
    server.reply(wire.error(404, 'model qwen not found'));
    const model = openaiCompatible('qwen', { baseURL: `${server.url}/v1`, name: 'vllm' });
    const error: unknown = await collect(model, {
      model: 'qwen',
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      config: {},
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "OpenAI-compatible server 'vllm' request for model 'qwen' failed with HTTP 404: model qwen not found Check the model name.",
    );
  });

  it('rejects bad options with the option, the value and the fix', () => {
    expect(() => openai('', {})).toThrow(/needs a model name/);
    expect(() => openai('gpt-4o', { structuredOutput: 'json' as 'native' })).toThrow(
      /structuredOutput is "json"; use 'native' or 'instruction'/,
    );
  });
});
