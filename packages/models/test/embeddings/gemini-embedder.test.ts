import { geminiEmbedder, ProviderError } from '@troupe/models';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, type FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { describeEmbedderCases } from './embedder-cases.js';
import { echo, geminiWire, vectorFor, type EmbeddingWire } from './wire.js';

const wire: EmbeddingWire = {
  label: 'Gemini',
  provider: 'gemini',
  path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
  defaultDimensions: 3072,
  make: (server, options = {}) =>
    geminiEmbedder({ model: 'gemini-embedding-001', apiKey: 'g-test', baseURL: server.url, ...options }),
  ...geminiWire,
};

describeEmbedderCases('geminiEmbedder', wire);

describe('geminiEmbedder wire format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  afterEach(() => vi.unstubAllEnvs());

  it('posts one request per text with the model, the size and the task, and the key in x-goog-api-key', async () => {
    server.reply(echo(wire, 768));
    const embedder = geminiEmbedder({
      model: 'models/gemini-embedding-001',
      apiKey: 'g-test',
      baseURL: server.url,
      dimensions: 768,
      taskType: 'SEMANTIC_SIMILARITY',
    });
    expect(embedder.modelId).toBe('gemini:gemini-embedding-001');
    expect(embedder.maxBatchSize).toBe(100);
    expect(await embedder.embed(['one', 'two'])).toEqual([vectorFor('one', 768), vectorFor('two', 768)]);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(sent.headers['x-goog-api-key']).toBe('g-test');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      requests: ['one', 'two'].map((text) => ({
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text }] },
        outputDimensionality: 768,
        taskType: 'SEMANTIC_SIMILARITY',
      })),
    });
  });

  it('leaves outputDimensionality out when dimensions is not set (older models refuse it)', async () => {
    server.reply(echo(wire, 768));
    await geminiEmbedder({ model: 'text-embedding-004', apiKey: 'g-test', baseURL: server.url }).embed(['x']);
    expect(server.requests[0]!.body).toEqual({
      requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'x' }] } }],
    });
  });

  it('sends 250 texts as three requests of at most 100', async () => {
    server.reply(echo(wire, 8), echo(wire, 8), echo(wire, 8));
    const texts = Array.from({ length: 250 }, (_, i) => `note ${i}`);
    const embedder = geminiEmbedder({ model: 'gemini-embedding-001', apiKey: 'g', baseURL: server.url, dimensions: 8 });
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((req) => wire.texts(req).length)).toEqual([100, 100, 50]);
    expect(vectors).toEqual(texts.map((text) => vectorFor(text, 8)));
  });

  it('waits as long as the RetryInfo in a 429 body says', async () => {
    server.reply(
      json(429, {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.2s' }],
        },
      }),
      echo(wire, 8),
    );
    const embedder = geminiEmbedder({
      model: 'gemini-embedding-001',
      apiKey: 'g',
      baseURL: server.url,
      dimensions: 8,
      retry: { initialDelayMs: 1, jitter: false },
    });
    const started = performance.now();
    await embedder.embed(['x']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
    expect(server.requests).toHaveLength(2);
  });

  it('names the key variables on a 403 and masks the key the server echoes', async () => {
    server.reply(wire.error(403, 'API key not valid: g-secret-key-123. Please pass a valid API key.'));
    const error: unknown = await geminiEmbedder({
      model: 'gemini-embedding-001',
      apiKey: 'g-secret-key-123',
      baseURL: server.url,
    })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain(
      'Check the API key (GEMINI_API_KEY or GOOGLE_API_KEY, or the apiKey option)',
    );
    expect((error as Error).message).not.toContain('g-secret-key-123');
  });

  it('reads the key from GEMINI_API_KEY, else GOOGLE_API_KEY', async () => {
    vi.stubEnv('GEMINI_API_KEY', '');
    vi.stubEnv('GOOGLE_API_KEY', 'google-env');
    server.reply(echo(wire));
    await geminiEmbedder({ model: 'gemini-embedding-001', baseURL: server.url }).embed(['x']);
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe('google-env');
    vi.stubEnv('GOOGLE_API_KEY', '');
    await expect(geminiEmbedder({ model: 'gemini-embedding-001', baseURL: server.url }).embed(['x'])).rejects.toThrow(
      /Set the GEMINI_API_KEY or GOOGLE_API_KEY environment variable, or pass \{ apiKey \} to geminiEmbedder\(\)/,
    );
  });

  it('rejects bad options when it is made', () => {
    expect(() => geminiEmbedder({ model: 'gemini-embedding-001', taskType: 'SEARCH' as never })).toThrow(
      /geminiEmbedder\(\) option taskType is "SEARCH"; use 'RETRIEVAL_QUERY', /,
    );
    expect(() => geminiEmbedder({ model: 'gemini-embedding-001', maxBatchSize: 101 })).toThrow(
      /maxBatchSize is 101, above the provider's limit of 100/,
    );
    expect(() => geminiEmbedder({ model: 'embedding-gecko' })).toThrow(
      /does not know the vector size of model 'embedding-gecko'/,
    );
  });
});
