import { ConfigurationError, ModelError } from '@troupe/core';
import { ProviderError } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import { hang, type FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';
import { echo, vectorFor, type EmbeddingWire } from './wire.js';

const FAST_RETRY = { retry: { initialDelayMs: 1, maxDelayMs: 5000, jitter: false } };

/** The behaviour every HTTP embedding adapter shares, run against the provider's wire protocol. */
export function describeEmbedderCases(name: string, wire: EmbeddingWire): void {
  describe(`${name}: shared embedder behaviour`, () => {
    let server: FakeServer;
    serverPerTest((started) => (server = started));

    it('returns one vector per text, in the texts’ order, from one request', async () => {
      server.reply(echo(wire));
      const texts = ['my favourite city is Lisbon', 'which town do I like?', 'tea'];
      const vectors = await wire.make(server).embed(texts);
      expect(vectors).toEqual(texts.map((text) => vectorFor(text, wire.defaultDimensions)));
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.path).toBe(wire.path);
      expect(wire.texts(server.requests[0]!)).toEqual(texts);
    });

    it('sends nothing for no texts', async () => {
      await expect(wire.make(server).embed([])).resolves.toEqual([]);
      expect(server.requests).toHaveLength(0);
    });

    it('splits a long list into batches of maxBatchSize and keeps the order', async () => {
      server.reply(echo(wire), echo(wire), echo(wire));
      const texts = Array.from({ length: 25 }, (_, i) => `memory ${i}`);
      const vectors = await wire.make(server, { maxBatchSize: 10 }).embed(texts);
      expect(server.requests.map((req) => wire.texts(req).length)).toEqual([10, 10, 5]);
      expect(server.requests.flatMap((req) => wire.texts(req))).toEqual(texts);
      expect(vectors).toEqual(texts.map((text) => vectorFor(text, wire.defaultDimensions)));
    });

    it('retries a 429 after the Retry-After the provider asked for', async () => {
      server.reply(wire.error(429, 'Rate limit reached for requests', { 'retry-after': '0.2' }), echo(wire));
      const started = performance.now();
      const vectors = await wire.make(server, FAST_RETRY).embed(['a']);
      expect(performance.now() - started).toBeGreaterThanOrEqual(180);
      expect(vectors).toEqual([vectorFor('a', wire.defaultDimensions)]);
      expect(server.requests).toHaveLength(2);
    });

    it('retries only the batch that failed', async () => {
      server.reply(echo(wire), wire.error(503, 'Overloaded'), echo(wire));
      const texts = ['a', 'b', 'c', 'd'];
      const vectors = await wire.make(server, { maxBatchSize: 2, ...FAST_RETRY }).embed(texts);
      expect(server.requests.map((req) => wire.texts(req))).toEqual([
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ]);
      expect(vectors).toEqual(texts.map((text) => vectorFor(text, wire.defaultDimensions)));
    });

    it('does not retry a 400 and names the provider, the model, the status and its message', async () => {
      server.reply(wire.error(400, 'Invalid input: the text is too long.'));
      const error: unknown = await wire
        .make(server, FAST_RETRY)
        .embed(['x'])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      const providerError = error as ProviderError;
      expect(providerError.status).toBe(400);
      expect(providerError.provider).toBe(wire.provider);
      expect(providerError.message).toContain(wire.label);
      expect(providerError.message).toContain('HTTP 400');
      expect(providerError.message).toContain('Invalid input: the text is too long.');
      expect(server.requests).toHaveLength(1);
    });

    it('gives up on repeated 500s after maxAttempts with the last error', async () => {
      server.reply(wire.error(500, 'Internal 1'), wire.error(500, 'Internal 2'));
      const retry = { maxAttempts: 2, initialDelayMs: 1, jitter: false };
      const error: unknown = await wire
        .make(server, { retry })
        .embed(['x'])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as ModelError).message).toContain('Internal 2');
      expect(server.requests).toHaveLength(2);
    });

    it('cancels the request when the signal fires, rejecting with its reason', async () => {
      server.reply(hang());
      const controller = new AbortController();
      const pending = wire.make(server).embed(['slow'], { signal: controller.signal });
      await server.waitForRequests(1);
      const reason = new Error('user left');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await server.requests[0]!.closed;
    });

    it('ends the wait between retries when the signal fires', async () => {
      server.reply(wire.error(429, 'slow down', { 'retry-after': '20' }));
      const controller = new AbortController();
      const retry = { initialDelayMs: 1, maxDelayMs: 60_000 };
      const pending = wire.make(server, { retry }).embed(['x'], { signal: controller.signal });
      await server.waitForRequests(1);
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow('stop');
      expect(server.requests).toHaveLength(1);
    });

    it('refuses vectors of another length than dimensions, naming both', async () => {
      server.reply(echo(wire, 3));
      const error: unknown = await wire
        .make(server, { dimensions: 4 })
        .embed(['x'])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/expects vectors of 4 dimensions, but the provider returned 3/);
      expect((error as Error).message).toContain('{ dimensions: 3 }');
    });

    it('refuses an answer with fewer vectors than texts', async () => {
      server.reply(wire.vectors([vectorFor('a', wire.defaultDimensions)]));
      await expect(wire.make(server, FAST_RETRY).embed(['a', 'b'])).rejects.toThrow(/returned 1 vectors for 2 texts/);
    });
  });
}
