import {
  type Context as AgUiContext,
  type ContentPart,
  contentToText,
  type Message,
  type ToolMessage,
  type UserMessage,
} from '@ag-ui/core';
import type { Content, Part } from '@troupe/core';

// AG-UI clients send the whole conversation with every run; the Troupe session already holds it,
// so only what is new is read from `messages`: the user's last message (a new turn) and the tool
// messages that answer client tool calls.

/** The input's new user message: its last message, when that is the user's. */
export function newUserMessage(messages: readonly Message[]): UserMessage | undefined {
  const last = messages.at(-1);
  return last?.role === 'user' ? last : undefined;
}

/** The input's tool messages, by the id of the tool call each answers (the last one wins). */
export function toolMessagesById(messages: readonly Message[]): Map<string, ToolMessage> {
  const byId = new Map<string, ToolMessage>();
  for (const message of messages) if (message.role === 'tool') byId.set(message.toolCallId, message);
  return byId;
}

/**
 * A user message as the user's Content. Media with inline data become `inlineData` parts; a URL or
 * a provider's file handle is skipped (AG-UI asks a producer to skip what it cannot use rather than
 * fail). The run's `context` entries follow as one more text part, so the model sees them.
 */
export function userContentOf(message: UserMessage, context: readonly AgUiContext[]): Content {
  const parts: Part[] =
    typeof message.content === 'string' ? [{ text: message.content }] : message.content.flatMap(partOf);
  if (context.length > 0)
    parts.push({
      text: `Context from the application:\n${context.map((entry) => `- ${entry.description}: ${entry.value}`).join('\n')}`,
    });
  if (parts.length === 0) parts.push({ text: '' });
  return { role: 'user', parts };
}

function partOf(part: ContentPart): Part[] {
  if (part.type === 'text') return [{ text: part.text }];
  return part.source.type === 'data'
    ? [{ inlineData: { mimeType: part.source.mimeType, data: part.source.value } }]
    : [];
}

/**
 * What a client tool returned, as the tool's result: the content's JSON when it is JSON (tools
 * return structured data as text), else its text; with the message's `error` when it failed.
 */
export function toolResultOf(message: ToolMessage): unknown {
  const text = contentToText(message.content);
  let result: unknown = text;
  try {
    result = JSON.parse(text);
  } catch {
    // Plain text is the result as it is.
  }
  if (message.error === undefined) return result;
  return text === '' ? { error: message.error } : { error: message.error, result };
}
