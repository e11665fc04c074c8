import type { EmbeddingModel, RetryOptions } from '@troupe/core';
import { json, type FakeServer, type RecordedRequest, type Reply } from '../support/fake-server.js';

/** A vector that depends on the text, so a test can tell which vector belongs to which text. */
export function vectorFor(text: string, dimensions: number): number[] {
  let hash = 7;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) % 10_007;
  return Array.from({ length: dimensions }, (_, i) => ((hash * (i + 3)) % 1000) / 1000);
}

/** How the embedder options a shared case sets reach the adapter under test. */
export interface KitOptions {
  dimensions?: number;
  maxBatchSize?: number;
  retry?: RetryOptions | false;
}

/**
 * One provider's embedding wire protocol, for the cases every HTTP embedding adapter runs: how to
 * build the adapter against a fake server, how the provider answers and fails, and how to read
 * the texts out of a request.
 */
export interface EmbeddingWire {
  /** The provider as error messages name it. */
  label: string;
  /** `ModelError.provider`. */
  provider: string;
  /** The path every request goes to. */
  path: string;
  /** The model's size when `dimensions` is not given. */
  defaultDimensions: number;
  make(server: FakeServer, options?: KitOptions): EmbeddingModel;
  /** The texts of a request, in order. */
  texts(req: RecordedRequest): string[];
  /** The provider's answer carrying these vectors. */
  vectors(vectors: number[][]): Reply;
  /** An error in the provider's format. */
  error(status: number, message: string, headers?: Record<string, string>): Reply;
}

/** Answers with {@link vectorFor} of each text the request carries (at the given size). */
export function echo(wire: EmbeddingWire, dimensions = wire.defaultDimensions): Reply {
  return (res, req) => wire.vectors(wire.texts(req).map((text) => vectorFor(text, dimensions)))(res, req);
}

export const openaiWire = {
  texts: (req: RecordedRequest): string[] => req.body.input as string[],
  /** `{ object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }`, in reverse order to show sorting. */
  vectors: (vectors: number[][]): Reply =>
    json(200, {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse(),
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: vectors.length, total_tokens: vectors.length },
    }),
  error: (status: number, message: string, headers: Record<string, string> = {}): Reply =>
    json(status, { error: { message, type: 'invalid_request_error', param: null, code: null } }, headers),
};

export const geminiWire = {
  texts: (req: RecordedRequest): string[] =>
    (req.body.requests as { content: { parts: { text: string }[] } }[]).map((r) => r.content.parts[0]!.text),
  vectors: (vectors: number[][]): Reply => json(200, { embeddings: vectors.map((values) => ({ values })) }),
  error: (status: number, message: string, headers: Record<string, string> = {}): Reply =>
    json(
      status,
      { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT' } },
      headers,
    ),
};

export const ollamaWire = {
  texts: (req: RecordedRequest): string[] => req.body.input as string[],
  vectors: (vectors: number[][]): Reply =>
    json(200, {
      model: 'nomic-embed-text',
      embeddings: vectors,
      total_duration: 1000,
      prompt_eval_count: vectors.length,
    }),
  error: (status: number, message: string, headers: Record<string, string> = {}): Reply =>
    json(status, { error: message }, headers),
};
