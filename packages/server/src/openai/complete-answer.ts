import type { Context } from 'hono';
import type { ServerEnv } from '../server-context.js';
import { chatCompletion, type CompletionMeta } from './completion-shapes.js';
import type { StartedChatTurn } from './turn-events.js';
import { TurnReader } from './turn-reader.js';

/**
 * Answers with the whole turn as one `chat.completion`, once it has ended: the assistant message,
 * the finish reason and the usage. A turn that failed is answered with OpenAI's error shape (500,
 * the run's own message and code); one a worker refused before it did anything throws, as the 4xx it is.
 */
export async function completeAnswer(
  c: Context<ServerEnv>,
  started: StartedChatTurn,
  meta: CompletionMeta,
  headers: Record<string, string>,
): Promise<Response> {
  const reader = new TurnReader();
  let content = '';
  for await (const event of started.events) content += reader.read(event).join('');
  content += reader.finish().join('');
  const failure = reader.failure;
  if (failure) return c.json(failure.body, failure.status, headers);
  return c.json(chatCompletion(meta, content, reader.finishReason, reader.usage), 200, {
    ...headers,
    ...interruptHeader(reader.interruptIds),
  });
}

/** The response header that names the questions a turn paused on. */
export const INTERRUPT_HEADER = 'X-Troupe-Interrupt-Id';

/** {@link INTERRUPT_HEADER} for these ids (several are comma-separated, as HTTP lists are), or nothing. */
export function interruptHeader(ids: readonly string[]): Record<string, string> {
  return ids.length > 0 ? { [INTERRUPT_HEADER]: ids.join(', ') } : {};
}
