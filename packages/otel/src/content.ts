import type { Content, Part } from '@troupe/core';

/** A message part in the shape of the GenAI conventions' `gen_ai.input.messages` / `gen_ai.output.messages`. */
type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_call_response'; id: string; response: Record<string, unknown> }
  | { type: 'blob'; mime_type: string };

interface Message {
  role: 'user' | 'assistant' | 'tool';
  parts: MessagePart[];
  finish_reason?: string;
}

/** Troupe contents (Gemini shape) as a JSON string of GenAI-convention messages; inline data is reduced to its MIME type. */
export function messagesJson(contents: readonly Content[], finishReason?: string): string {
  const messages: Message[] = contents.map((content) => {
    const parts = content.parts.map(toMessagePart);
    const role =
      content.role === 'model'
        ? 'assistant'
        : parts.length > 0 && parts.every((p) => p.type === 'tool_call_response')
          ? 'tool'
          : 'user';
    return finishReason === undefined ? { role, parts } : { role, parts, finish_reason: finishReason };
  });
  return JSON.stringify(messages);
}

/** A value as attribute text: strings as they are, anything else as JSON. */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Cyclic or otherwise unserialisable values are shown by their string form.
    return String(value);
  }
}

function toMessagePart(part: Part): MessagePart {
  if ('text' in part)
    return part.thought ? { type: 'reasoning', content: part.text } : { type: 'text', content: part.text };
  if ('functionCall' in part)
    return {
      type: 'tool_call',
      id: part.functionCall.id,
      name: part.functionCall.name,
      arguments: part.functionCall.args,
    };
  if ('functionResponse' in part)
    return { type: 'tool_call_response', id: part.functionResponse.id, response: part.functionResponse.response };
  return { type: 'blob', mime_type: part.inlineData.mimeType };
}
