import { randomUUID } from 'node:crypto';
import type { CompletionUsage, FinishReason } from './turn-reader.js';

/** What every object of one completion shares: its id, when it was made, and the model (the app). */
export interface CompletionMeta {
  id: string;
  /** Seconds since the epoch, as OpenAI sends it. */
  created: number;
  model: string;
}

/** The meta of a new completion for `model`. */
export function completionMeta(model: string): CompletionMeta {
  return { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model };
}

/** A non-streamed answer: OpenAI's `chat.completion` object with the one assistant message. */
export function chatCompletion(
  meta: CompletionMeta,
  content: string,
  finishReason: FinishReason,
  usage: CompletionUsage,
) {
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage,
  };
}

/** The delta of one streamed chunk: the role first, then content, then nothing (with the finish reason). */
export type ChunkDelta = { role: 'assistant'; content: string } | { content: string } | Record<string, never>;

/**
 * A `chat.completion.chunk` with one choice. With `stream_options.include_usage`, every chunk
 * carries `usage: null`, as OpenAI sends them, and only the last ({@link usageChunk}) the numbers.
 */
export function completionChunk(
  meta: CompletionMeta,
  delta: ChunkDelta,
  finishReason: FinishReason | null,
  includeUsage: boolean,
) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  };
}

/** The chunk `stream_options.include_usage` adds after the last one: no choices, the turn's usage. */
export function usageChunk(meta: CompletionMeta, usage: CompletionUsage) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk' as const,
    created: meta.created,
    model: meta.model,
    choices: [],
    usage,
  };
}
