import { ConfigurationError } from '@troupe/core';
import { openaiEmbedder } from '@troupe/models';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hang, type FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { describeEmbedderCases } from './embedder-cases.js';
import { echo, openaiWire, vectorFor, type EmbeddingWire } from './wire.js';

const wire: EmbeddingWire = {
  label: 'OpenAI-compatible server',
  provider: 'openai',
  path: '/v1/embeddings',
  defaultDimensions: 1536,
  make: (server, options = {}) =>
    openaiEmbedder({ model: 'text-embedding-3-small', apiKey: 'sk-test', baseURL: `${server.url}/v1`, ...options }),
  ...openaiWire,
};

describeEmbedderCases('openaiEmbedder', wire);

describe('openaiEmbedder wire format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  afterEach(() => vi.unstubAllEnvs());

  it('posts model, input and float encoding with the bearer key, and names itself', async () => {
    server.reply(echo(wire));
    const embedder = openaiEmbedder({
      model: 'text-embedding-3-small',
      apiKey: 'sk-test',
      baseURL: `${server.url}/v1/`,
      organization: 'org-1',
      headers: { 'x-trace': 't1' },
    });
    expect(embedder.modelId).toBe('openai:text-embedding-3-small');
    expect(embedder.dimensions).toBe(1536);
    expect(embedder.maxBatchSize).toBe(2048);
    await embedder.embed(['hello']);
    const sent = server.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['openai-organization']).toBe('org-1');
    expect(sent.headers['x-trace']).toBe('t1');
    expect(sent.body).toEqual({ model: 'text-embedding-3-small', input: ['hello'], encoding_format: 'float' });
  });

  it('asks a text-embedding-3 model for shortened vectors when dimensions is set', async () => {
    server.reply(echo(wire, 256));
    const embedder = openaiEmbedder({
      model: 'text-embedding-3-large',
      apiKey: 'sk-test',
      baseURL: server.url,
      dimensions: 256,
    });
    expect(await embedder.embed(['hi'])).toEqual([vectorFor('hi', 256)]);
    expect(server.requests[0]!.body).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256 });
  });

  it('never sends dimensions to other models, whose size is fixed', async () => {
    server.reply(echo(wire, 768));
    const embedder = openaiEmbedder({ model: 'bge-base-en', baseURL: server.url, dimensions: 768 });
    await embedder.embed(['hi']);
    expect(server.requests[0]!.body).toEqual({ model: 'bge-base-en', input: ['hi'], encoding_format: 'float' });
    // A compatible server without a key gets no Authorization header.
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('orders the vectors by index, not by their place in the answer', async () => {
    server.reply(
      (res) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            data: [
              { index: 2, embedding: [0, 0, 1] },
              { index: 0, embedding: [1, 0, 0] },
              { index: 1, embedding: [0, 1, 0] },
            ],
          }),
        ),
    );
    const embedder = openaiEmbedder({ model: 'm', baseURL: server.url, dimensions: 3 });
    expect(await embedder.embed(['a', 'b', 'c'])).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
  });

  it('sends 2048 texts per request at most by default', async () => {
    server.reply(echo(wire, 2), echo(wire, 2), echo(wire, 2));
    const texts = Array.from({ length: 4100 }, (_, i) => `t${i}`);
    const embedder = openaiEmbedder({ model: 'small', baseURL: server.url, dimensions: 2 });
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((req) => wire.texts(req).length)).toEqual([2048, 2048, 4]);
    expect(vectors[4099]).toEqual(vectorFor('t4099', 2));
  });

  it('takes the key from OPENAI_API_KEY and says how to set it when there is none', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const embedder = openaiEmbedder({ model: 'text-embedding-3-small' });
    await expect(embedder.embed(['x'])).rejects.toThrow(
      /No OpenAI API key was found. Set the OPENAI_API_KEY environment variable, or pass \{ apiKey \} to openaiEmbedder\(\)/,
    );
    server.reply(echo(wire));
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    await openaiEmbedder({ model: 'text-embedding-3-small', baseURL: server.url }).embed(['x']);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-env');
  });

  it('ends a request after timeoutMs and tries it again', async () => {
    server.reply(hang(), echo(wire));
    const vectors = await openaiEmbedder({
      model: 'text-embedding-3-small',
      apiKey: 'sk',
      baseURL: server.url,
      // Long enough for the answered retry to come back in time on a busy machine.
      timeoutMs: 1000,
      retry: { initialDelayMs: 1, jitter: false },
    }).embed(['x']);
    expect(vectors).toEqual([vectorFor('x', 1536)]);
    expect(server.requests).toHaveLength(2);
    await server.requests[0]!.closed;
  });

  it('rejects bad options when it is made, naming the option, the value and the fix', () => {
    const bad = (options: object, message: RegExp) =>
      expect(() => openaiEmbedder({ model: 'text-embedding-3-small', ...options })).toThrow(message);
    expect(() => openaiEmbedder({ model: 'my-model' })).toThrow(ConfigurationError);
    expect(() => openaiEmbedder({ model: 'my-model' })).toThrow(
      /does not know the vector size of model 'my-model'. Pass \{ dimensions \}/,
    );
    expect(() => openaiEmbedder({ model: '' })).toThrow(/needs a model name such as 'text-embedding-3-small'/);
    bad({ dimensions: 0 }, /option dimensions is 0; use a whole number of at least 1/);
    bad({ dimensions: 1.5 }, /option dimensions is 1.5/);
    bad({ maxBatchSize: 5000 }, /option maxBatchSize is 5000, above the provider's limit of 2048/);
    bad({ baseURL: 'localhost:8080' }, /option baseURL is "localhost:8080"; use an http\(s\) URL/);
    bad({ retry: { maxAttempts: 0 } }, /maxAttempts is 0/);
    bad({ fetch: 'curl' }, /option fetch is "curl"/);
    bad({ timeoutMs: -1 }, /option timeoutMs is -1; use a number of milliseconds above 0/);
    bad({ headers: 'x' }, /option headers must be an object of header names and values/);
    expect(() => openaiEmbedder(undefined as never)).toThrow(/takes an options object/);
  });
});
