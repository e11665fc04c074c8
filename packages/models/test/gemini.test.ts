import { ConfigurationError, resolveModel } from '@troupe/core';
import { GeminiLlm, ProviderError, gemini } from '@troupe/models';
import { afterEach, describe, expect, it } from 'vitest';
import { describeAdapterContract } from './support/contract.js';
import { publishedAdapterContract } from './support/published-contract.js';
import { FakeServer, json } from './support/fake-server.js';
import type { WireKit } from './support/kit.js';
import { asker, collect } from './support/collect.js';
import { serverPerTest } from './support/server-per-test.js';
import * as wire from './support/gemini-wire.js';

const kit: WireKit = {
  label: 'Gemini',
  provider: 'gemini',
  model: (server, options = {}) => gemini('gemini-2.5-flash', { apiKey: 'gm-test', baseURL: server.url, ...options }),
  ...wire,
};

describeAdapterContract('gemini', kit, { sendsCallIds: false, malformed: 'retried' });
publishedAdapterContract('GeminiLlm', kit, (req) =>
  (
    wire
      .contents(req)
      .filter((c) => c.role === 'user')
      .at(-1)?.parts ?? []
  )
    .map((p) => p.text ?? '')
    .join(''),
);

const ask = asker('gemini');

describe('gemini request format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it('sends generateContent with the system instruction, generation config, function declarations and the key', async () => {
    server.reply(wire.text('ok'));
    await collect(
      kit.model(server),
      ask({
        systemInstruction: 'You are terse.',
        temperature: 0.3,
        topP: 0.9,
        topK: 20,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        seed: 7,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 512 },
        tools: [
          {
            name: 'lookup',
            description: 'Looks things up.',
            parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        ],
      }),
    );
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('gm-test');
    expect(sent.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    expect(wire.system(sent)).toBe('You are terse.');
    expect(sent.body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Looks things up.',
            parametersJsonSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          },
        ],
      },
    ]);
    expect(wire.generationConfig(sent)).toEqual({
      temperature: 0.3,
      topP: 0.9,
      topK: 20,
      maxOutputTokens: 256,
      stopSequences: ['END'],
      seed: 7,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 512 },
    });
  });

  it('streams from streamGenerateContent with alt=sse', async () => {
    server.reply(wire.text('ok'));
    await collect(kit.model(server), ask(), true);
    expect(server.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  it('gives calls without an id one, leaves it out when sending them back, and keeps thought signatures', async () => {
    server.reply((res, req) =>
      json(200, {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                { functionCall: { name: 'lookup', args: { q: 'a' } }, thoughtSignature: 'c2lnLTE=' },
                { functionCall: { id: 'fc-2', name: 'lookup', args: { q: 'b' } } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      })(res, req),
    );
    const [final] = await collect(kit.model(server), ask({ tools: [{ name: 'lookup', description: 'x' }] }));
    const parts = final!.content!.parts;
    expect(parts).toMatchObject([
      { functionCall: { name: 'lookup', args: { q: 'a' } }, thoughtSignature: 'c2lnLTE=' },
      { functionCall: { id: 'fc-2', name: 'lookup', args: { q: 'b' } } },
    ]);
    const generatedId = 'functionCall' in parts[0]! ? parts[0].functionCall.id : '';
    expect(generatedId).toMatch(/^troupe_call_\w+$/);

    server.reply(wire.text('done'));
    await collect(
      kit.model(server),
      ask({}, [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: generatedId, name: 'lookup', response: { r: 1 } } },
            { functionResponse: { id: 'fc-2', name: 'lookup', response: { r: 2 } } },
          ],
        },
      ]),
    );
    expect(wire.contents(server.requests[1]!)).toEqual([
      { role: 'user', parts: [{ text: 'Hi' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'lookup', args: { q: 'a' } }, thoughtSignature: 'c2lnLTE=' },
          { functionCall: { id: 'fc-2', name: 'lookup', args: { q: 'b' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'lookup', response: { r: 1 } } },
          { functionResponse: { id: 'fc-2', name: 'lookup', response: { r: 2 } } },
        ],
      },
    ]);
  });

  it('marks calls without a signature for Gemini 3, which requires one on the first call of a turn', async () => {
    server.reply(wire.text('ok'));
    const model = gemini('gemini-3-pro-preview', { apiKey: 'k', baseURL: server.url });
    await collect(
      model,
      ask({}, [
        { role: 'user', parts: [{ text: 'Hi' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'call_1', name: 'f', args: {} } },
            { functionCall: { id: 'call_2', name: 'f', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_1', name: 'f', response: {} } },
            { functionResponse: { id: 'call_2', name: 'f', response: {} } },
          ],
        },
      ]),
    );
    const modelTurn = wire.contents(server.requests[0]!)[1]!;
    expect(modelTurn.parts.map((p) => p.thoughtSignature)).toEqual(['skip_thought_signature_validator', undefined]);
  });

  it('puts the schema in the instruction when Gemini 2.x gets tools too, and sends it natively to Gemini 3', async () => {
    server.reply(wire.text('{}'), wire.text('{}'));
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const tools = [{ name: 'f', description: 'x' }];
    await collect(kit.model(server), ask({ systemInstruction: 'Base.', responseSchema: schema, tools }));
    await collect(
      gemini('gemini-3-flash', { apiKey: 'k', baseURL: server.url }),
      ask({ responseSchema: schema, tools }),
    );
    const [older, newer] = server.requests;
    expect(wire.responseSchema(older!)).toBeUndefined();
    expect(wire.system(older!)).toContain('Base.\n\nGive your final answer as a single JSON value');
    expect(wire.system(older!)).toContain(JSON.stringify(schema));
    expect(wire.generationConfig(newer!)).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it('honours the retryDelay of a RESOURCE_EXHAUSTED error body', async () => {
    server.reply(
      wire.error(429, 'Quota exceeded.', {}, [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.3s' },
      ]),
      wire.text('later'),
    );
    const started = performance.now();
    const [final] = await collect(
      gemini('gemini-2.5-flash', { apiKey: 'k', baseURL: server.url, retry: { initialDelayMs: 1, jitter: false } }),
      ask(),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(final!.content!.parts).toEqual([{ text: 'later' }]);
  });

  it('reports a blocked prompt as an error code', async () => {
    server.reply(
      json(200, {
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 },
      }),
    );
    const [final] = await collect(kit.model(server), ask());
    expect(final).toMatchObject({ errorCode: 'SAFETY', usage: { inputTokens: 3, outputTokens: 0 } });
  });

  it('fails a MALFORMED_FUNCTION_CALL turn as a retryable error', async () => {
    server.reply(json(200, { candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }));
    const error: unknown = await collect(
      gemini('gemini-2.5-flash', { apiKey: 'k', baseURL: server.url, retry: false }),
      ask({ tools: [{ name: 'add', description: 'x' }] }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ retryable: true, provider: 'gemini', status: undefined });
    expect((error as Error).message).toBe(
      "Gemini response for model 'gemini-2.5-flash' was unusable: the model could not form a valid function call (finishReason MALFORMED_FUNCTION_CALL)",
    );
  });
});

describe('gemini keys and model strings', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('names GEMINI_API_KEY and GOOGLE_API_KEY when no key is set', async () => {
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_API_KEY;
    delete process.env.GOOGLE_GENAI_USE_VERTEXAI;
    const error: unknown = await collect(gemini('gemini-2.5-flash'), ask()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('GEMINI_API_KEY or GOOGLE_API_KEY');
  });

  it('asks for a project on Vertex AI', async () => {
    delete process.env.GOOGLE_CLOUD_PROJECT;
    const error: unknown = await collect(gemini('gemini-2.5-flash', { vertexai: true }), ask()).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toContain('GOOGLE_CLOUD_PROJECT');
  });

  it('resolves gemini/<model> and bare gemini-* strings', () => {
    const prefixed = resolveModel('gemini/gemini-2.5-pro');
    const bare = resolveModel('gemini-2.5-flash');
    expect(prefixed).toBeInstanceOf(GeminiLlm);
    expect(prefixed.model).toBe('gemini-2.5-pro');
    expect(bare).toBeInstanceOf(GeminiLlm);
    expect(bare.model).toBe('gemini-2.5-flash');
  });

  it('reads the key from GOOGLE_API_KEY', async () => {
    delete process.env.GEMINI_API_KEY;
    process.env.GOOGLE_API_KEY = 'from-google-env';
    const server = await FakeServer.start();
    try {
      server.reply(wire.text('ok'));
      await collect(gemini('gemini-2.5-flash', { baseURL: server.url }), ask());
      expect(server.requests[0]!.headers['x-goog-api-key']).toBe('from-google-env');
    } finally {
      await server.close();
    }
  });
});
