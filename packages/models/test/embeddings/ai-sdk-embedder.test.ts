import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ConfigurationError, ModelError } from '@troupe/core';
import { aiSdkEmbedder, type AiSdkEmbeddingModel } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { serverPerTest } from '../support/server-per-test.js';
import { describeEmbedderCases } from './embedder-cases.js';
import { json, type FakeServer } from '../support/fake-server.js';
import { echo, openaiWire, vectorFor, type EmbeddingWire } from './wire.js';

function provider(server: FakeServer) {
  return createOpenAICompatible({ name: 'local', baseURL: `${server.url}/v1`, apiKey: 'sk-test' });
}

// An AI SDK provider package (openai-compatible) pointed at the local server: the AI SDK does the
// HTTP, the adapter batches, retries and checks.
const wire: EmbeddingWire = {
  label: "AI SDK provider 'local.embedding'",
  provider: 'local.embedding',
  path: '/v1/embeddings',
  defaultDimensions: 1536,
  make: (server, options = {}) => aiSdkEmbedder(provider(server).embeddingModel('text-embedding-3-small'), options),
  ...openaiWire,
  // In the input's order: the openai-compatible package reads `data` in array order, not by `index`.
  vectors: (vectors) =>
    json(200, { data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })) }),
};

describeEmbedderCases('aiSdkEmbedder', wire);

/** A minimal model implementing the AI SDK embedding spec, recording its calls. */
function specModel(
  version: 'v2' | 'v3' | 'v4',
  options: { limit?: AiSdkEmbeddingModel['maxEmbeddingsPerCall']; dimensions?: number; fail?: unknown[] } = {},
) {
  const calls: { values: string[]; dimensions?: number; signal?: AbortSignal }[] = [];
  const failures = [...(options.fail ?? [])];
  const model: AiSdkEmbeddingModel = {
    specificationVersion: version,
    provider: 'spec',
    modelId: 'spec-embed',
    maxEmbeddingsPerCall: options.limit,
    doEmbed({ values, abortSignal, dimensions }) {
      calls.push({
        values,
        ...(dimensions === undefined ? {} : { dimensions }),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      const failure = failures.shift();
      if (failure !== undefined) return Promise.reject(failure);
      return Promise.resolve({ embeddings: values.map((v) => vectorFor(v, options.dimensions ?? 4)) });
    },
  };
  return { model, calls };
}

describe('aiSdkEmbedder with the embedding model spec', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it('sends the OpenAI wire format through the provider package', async () => {
    server.reply(echo(wire));
    const embedder = aiSdkEmbedder(provider(server).embeddingModel('text-embedding-3-small'));
    expect(embedder.modelId).toBe('local.embedding:text-embedding-3-small');
    expect(embedder.maxBatchSize).toBe(2048);
    await embedder.embed(['hi']);
    expect(server.requests[0]!.body).toMatchObject({
      model: 'text-embedding-3-small',
      input: ['hi'],
      encoding_format: 'float',
    });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it.each(['v2', 'v3'] as const)('calls a %s model with the texts and the signal', async (version) => {
    const { model, calls } = specModel(version);
    const controller = new AbortController();
    const vectors = await aiSdkEmbedder(model, { dimensions: 4 }).embed(['a', 'b'], { signal: controller.signal });
    expect(vectors).toEqual([vectorFor('a', 4), vectorFor('b', 4)]);
    expect(calls).toEqual([{ values: ['a', 'b'], signal: controller.signal }]);
  });

  it('asks a v4 model for the dimensions that were set', async () => {
    const { model, calls } = specModel('v4', { dimensions: 8 });
    await aiSdkEmbedder(model, { dimensions: 8 }).embed(['a']);
    expect(calls[0]!.dimensions).toBe(8);
  });

  it("batches by the model's limit, also when the model gives it as a promise", async () => {
    const { model, calls } = specModel('v3', { limit: Promise.resolve(2) });
    const embedder = aiSdkEmbedder(model, { dimensions: 4, maxBatchSize: 3 });
    expect(embedder.maxBatchSize).toBe(3);
    await embedder.embed(['a', 'b', 'c', 'd', 'e']);
    expect(calls.map((call) => call.values)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('retries an APICallError the provider marks retryable and maps a final one to a ModelError', async () => {
    const busy = Object.assign(new Error('Service busy'), { statusCode: 503, isRetryable: true, responseHeaders: {} });
    const bad = Object.assign(new Error('Input too long'), { statusCode: 400, isRetryable: false });
    const { model, calls } = specModel('v3', { fail: [busy, bad] });
    const error: unknown = await aiSdkEmbedder(model, { dimensions: 4, retry: { initialDelayMs: 1, jitter: false } })
      .embed(['a'])
      .catch((e: unknown) => e);
    expect(calls).toHaveLength(2);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(400);
    expect((error as ModelError).message).toBe(
      "AI SDK provider 'spec' request for model 'spec-embed' failed with HTTP 400: Input too long",
    );
  });

  it('rejects what is not an AI SDK embedding model, and unknown sizes', () => {
    expect(() => aiSdkEmbedder({} as never)).toThrow(/needs an AI SDK embedding model such as openai.embedding/);
    expect(() => aiSdkEmbedder({ ...specModel('v3').model, specificationVersion: 'v1' } as never)).toThrow(
      /specification v2, v3 and v4 \(ai 5 to 7\); this one is "v1"/,
    );
    expect(() => aiSdkEmbedder(specModel('v3').model)).toThrow(ConfigurationError);
    expect(() => aiSdkEmbedder(specModel('v3').model)).toThrow(/does not know the vector size of model 'spec-embed'/);
  });
});
