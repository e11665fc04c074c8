import type { Part as A2aPart } from '@a2a-js/sdk';
import type { Part } from '@troupe/core';

// A2A parts made from Troupe's content (Gemini shape), the same way on both sides of A2A: the
// server showing a task to its client, and RemoteA2aAgent writing to a remote agent.

/** An A2A text part. */
export function textPart(text: string, metadata?: Record<string, unknown>): A2aPart {
  return { content: { $case: 'text', value: text }, metadata, filename: '', mediaType: 'text/plain' };
}

/** An A2A data part: structured JSON. */
export function dataPart(value: unknown, metadata?: Record<string, unknown>): A2aPart {
  return { content: { $case: 'data', value }, metadata, filename: '', mediaType: 'application/json' };
}

/** What Troupe parts show the other side: their text (not the model's thoughts) and inline files. Tool calls and results stay inside the agent. */
export function toA2aParts(parts: readonly Part[]): A2aPart[] {
  const out: A2aPart[] = [];
  for (const part of parts) {
    if ('text' in part) {
      if (!part.thought && part.text !== '') out.push(textPart(part.text));
    } else if ('inlineData' in part) {
      out.push({
        content: { $case: 'raw', value: Buffer.from(part.inlineData.data, 'base64') },
        metadata: undefined,
        filename: '',
        mediaType: part.inlineData.mimeType,
      });
    }
  }
  return out;
}

/** A Troupe inline-data part holding an A2A part's raw bytes, as base64, with its media type (or octet-stream). */
export function inlinePart(part: A2aPart, bytes: Uint8Array): Part {
  return {
    inlineData: {
      mimeType: part.mediaType || 'application/octet-stream',
      data: Buffer.from(bytes).toString('base64'),
    },
  };
}
