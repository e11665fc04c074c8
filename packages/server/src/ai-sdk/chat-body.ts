import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from '../http-error.js';
import { readBody } from '../request-body.js';
import type { ServerEnv } from '../server-context.js';

// What `useChat` (through the AI SDK's DefaultChatTransport) posts: the chat's id, every message of
// the chat, what asked for the request, and the message it is about. Fields the application adds
// with the transport's `body` option are let through. The parts are checked where they are read:
// only the last message is new (see chat-turn.ts).

const part = z.looseObject({
  type: z.string({ error: "expected a part with a 'type', such as { type: 'text', text: 'Hello' }" }),
});

const message = z.looseObject({
  id: z.string({ error: 'expected the message id as a string' }),
  role: z.enum(['system', 'user', 'assistant'], { error: "expected 'user', 'assistant' or 'system'" }),
  parts: z.array(part, { error: 'expected the message parts as an array' }),
});

/** Body of `POST /apps/{app}/users/{user}/sessions/{id}/chat`: `useChat`'s request. */
export const chatBody = z.looseObject({
  /** The chat's id. The session is the one the path names. */
  id: z.string({ error: 'expected the chat id as a string' }).optional(),
  messages: z
    .array(message, { error: "expected the chat's messages as an array of UI messages { id, role, parts }" })
    .min(1, { error: 'expected at least one message (the last one is the new user message)' }),
  trigger: z
    .enum(['submit-message', 'regenerate-message'], { error: "expected 'submit-message' or 'regenerate-message'" })
    .default('submit-message'),
  /** The message the request is about: the assistant message to continue or regenerate. */
  messageId: z.string({ error: 'expected a message id as a string' }).nullish(),
});
export type ChatBody = z.infer<typeof chatBody>;
/** One UI message of the body. */
export type ChatMessage = ChatBody['messages'][number];

/** Reads `useChat`'s request: size, JSON limits and shape checked, a 400 naming the field otherwise. */
export function readChatBody(c: Context<ServerEnv>): Promise<ChatBody> {
  return readBody(c, chatBody);
}

/** A 400 for a field of the body that is well-formed but cannot be used, naming it and why. */
export function invalid(field: string, why: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', `Invalid request body: field '${field}': ${why}.`, field);
}
