import { ollamaEmbedder } from '@troupe/models';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { describeEmbedderCases } from './embedder-cases.js';
import { echo, ollamaWire, vectorFor, type EmbeddingWire } from './wire.js';

const wire: EmbeddingWire = {
  label: 'Ollama',
  provider: 'ollama',
  path: '/api/embed',
  defaultDimensions: 768,
  make: (server, options = {}) =>
    ollamaEmbedder({ model: 'nomic-embed-text', baseURL: server.url, dimensions: 768, ...options }),
  ...ollamaWire,
};

describeEmbedderCases('ollamaEmbedder', wire);

describe('ollamaEmbedder wire format', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));
  afterEach(() => vi.unstubAllEnvs());

  it('posts model and input to /api/embed without a key', async () => {
    server.reply(echo(wire));
    const embedder = ollamaEmbedder({ model: 'nomic-embed-text', baseURL: `${server.url}/`, dimensions: 768 });
    expect(embedder.modelId).toBe('ollama:nomic-embed-text');
    expect(embedder.maxBatchSize).toBeUndefined();
    expect(await embedder.embed(['a', 'b'])).toEqual([vectorFor('a', 768), vectorFor('b', 768)]);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/api/embed');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({ model: 'nomic-embed-text', input: ['a', 'b'] });
  });

  it('finds the server through OLLAMA_HOST given as host:port', async () => {
    vi.stubEnv('OLLAMA_HOST', server.url.replace('http://', ''));
    server.reply(echo(wire));
    await ollamaEmbedder({ model: 'nomic-embed-text', dimensions: 768 }).embed(['x']);
    expect(server.requests).toHaveLength(1);
  });

  it("surfaces Ollama's own message for a model that is not pulled", async () => {
    server.reply(wire.error(404, 'model "nomic-embed-text" not found, try pulling it first'));
    await expect(wire.make(server).embed(['x'])).rejects.toThrow(
      /Ollama request for model 'nomic-embed-text' failed with HTTP 404: model "nomic-embed-text" not found, try pulling it first Check the model name./,
    );
  });

  it('needs dimensions, and says which', () => {
    expect(() => ollamaEmbedder({ model: 'nomic-embed-text' } as never)).toThrow(
      /ollamaEmbedder\(\) option dimensions is undefined; use a whole number of at least 1 \(the length of the model's vectors, e.g. 768 for nomic-embed-text\)/,
    );
    expect(() => ollamaEmbedder({ model: 'm', dimensions: 4, baseURL: 11434 as never })).toThrow(
      /option baseURL is 11434/,
    );
  });
});
