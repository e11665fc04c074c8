import { readFileSync } from 'node:fs';
import type { LlmResponse } from '@troupe/core';
import { json, sse, type Reply } from '../support/fake-server.js';

/**
 * Reading the recorded fixtures (see README.md) and serving them in each provider's wire format.
 * A `.json` file is one response body; a `.chunks.txt` file holds one stream event per line, as
 * the provider sent it, and is replayed event by event.
 */

export type Recorded = Record<string, unknown>;

const ROOT = new URL('./fixtures/', import.meta.url);

function read(provider: string, name: string): string {
  return readFileSync(new URL(`${provider}/${name}`, ROOT), 'utf8');
}

/** A recorded JSON body. */
export function body(provider: string, name: string): Recorded {
  return JSON.parse(read(provider, name)) as Recorded;
}

/** The recorded stream events of a `.chunks.txt` file, in order. */
export function events(provider: string, name: string): Recorded[] {
  return read(provider, name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Recorded);
}

/** A recorded body served as the provider served it (HTTP 200 unless told). */
export function replayJson(provider: string, name: string, status = 200): Reply {
  return json(status, body(provider, name));
}

/** Chat Completions: `data: <chunk>` per event, then `data: [DONE]` as OpenAI ends every stream. */
export function replayChatStream(name: string): Reply {
  return sse([...events('openai-chat', name).map((e) => `data: ${JSON.stringify(e)}`), 'data: [DONE]']);
}

/** A stream recorded with its SSE framing (`.sse`): served byte for byte, one frame at a time. */
export function replayFramed(provider: string, name: string): Reply {
  return sse(
    read(provider, name)
      .split(/\n\n+/)
      .filter((frame) => frame.trim() !== ''),
  );
}

/** Anthropic Messages: `event: <type>` and `data: <event>` per event. */
export function replayAnthropicStream(name: string): Reply {
  return sse(events('anthropic', name).map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}`));
}

/** Gemini `streamGenerateContent?alt=sse`: `data: <response>` per chunk. */
export function replayGeminiStream(name: string): Reply {
  return sse(events('gemini', name).map((e) => `data: ${JSON.stringify(e)}`));
}

/** The streamed partial text (answer or thought) of a call's responses, joined. */
export function streamedText(responses: readonly LlmResponse[], thought = false): string {
  return responses
    .filter((r) => r.partial)
    .flatMap((r) => r.content?.parts ?? [])
    .map((p) => ('text' in p && Boolean(p.thought) === thought ? p.text : ''))
    .join('');
}

/** The last (complete) response of a call. */
export function last(responses: readonly LlmResponse[]): LlmResponse {
  const final = responses[responses.length - 1];
  if (!final || final.partial)
    throw new Error(`The call ended without a complete response (${responses.length} responses).`);
  return final;
}
