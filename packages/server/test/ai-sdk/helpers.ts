import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach } from 'vitest';
import { type BaseAgent, InMemorySessionService, type SessionService } from '@troupe/core';
import { createApp, type CreateAppOptions, serve, type ServerHandle, type TroupeApp } from '../../src/index.js';

// The AI SDK's own client pieces read the /chat route: DefaultChatTransport posts useChat's
// request and parses the response with the AI SDK's chunk schema (a chunk it does not accept fails
// the stream), and readUIMessageStream builds the assistant message from the chunks as useChat does.

/** An app served in process (`app.request`) or on 127.0.0.1, and the store behind it. */
export interface ChatServer {
  app: TroupeApp;
  sessionService: SessionService;
  /** Fetches a path of the server: in process, or over HTTP when served. */
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
}

const servers: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** `apps` behind createApp, asked in process with `app.request`. */
export function inProcess(apps: Record<string, BaseAgent>, options: Partial<CreateAppOptions> = {}): ChatServer {
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const app = createApp({ apps, sessionService, ...options });
  return { app, sessionService, fetch: async (path, init) => app.request(path, init) };
}

/** `apps` behind createApp on a free port of 127.0.0.1 (closed after the test), asked with fetch. */
export async function overHttp(
  apps: Record<string, BaseAgent>,
  options: Partial<CreateAppOptions> = {},
): Promise<ChatServer & { url: string }> {
  const served = inProcess(apps, options);
  const server = await serve(served.app, { port: 0 });
  servers.push(server);
  return { ...served, url: server.url, fetch: (path, init) => fetch(`${server.url}${path}`, init) };
}

/** The chat route of a session. */
export function chatPath(app: string, user: string, chatId: string): string {
  return `/apps/${app}/users/${user}/sessions/${chatId}/chat`;
}

/** What one request showed the AI SDK: the chunks it parsed, and the assistant message they built. */
export interface ChatReply {
  chunks: UIMessageChunk[];
  message: UIMessage;
}

/**
 * Sends `messages` as useChat does (its DefaultChatTransport) and reads the reply with
 * readUIMessageStream, continuing `continues` (the assistant message a resumed stream fills).
 */
export async function send(
  server: ChatServer,
  path: string,
  messages: UIMessage[],
  options: {
    continues?: UIMessage;
    headers?: Record<string, string>;
    messageId?: string;
    trigger?: 'submit-message' | 'regenerate-message';
  } = {},
): Promise<ChatReply> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: path,
    fetch: (input, init) => server.fetch(String(input), init),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  const stream = await transport.sendMessages({
    chatId: path.split('/').at(-2)!,
    messages,
    trigger: options.trigger ?? 'submit-message',
    messageId: options.messageId ?? options.continues?.id,
    abortSignal: undefined,
  });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const collected = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  let message: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const snapshot of readUIMessageStream<UIMessage>({
    stream: forMessage,
    ...(options.continues ? { message: structuredClone(options.continues) } : {}),
    onError: (error) => void errors.push(error),
  }))
    message = snapshot;
  await collected;
  // An error chunk is the protocol's; anything else the reader met (a chunk for a part it does not have) is a bug.
  const unexpected = errors.filter(
    (e) => !chunks.some((c) => c.type === 'error' && c.errorText === (e as Error).message),
  );
  if (unexpected.length > 0) throw unexpected[0];
  return { chunks, message: message ?? { id: '', role: 'assistant', parts: [] } };
}

/** A user message as useChat makes it. */
export function userMessage(text: string, id = `user-${text.length}-${text.slice(0, 8)}`): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

/** The chunk types, in order. */
export const typesOf = (reply: ChatReply): string[] => reply.chunks.map((c) => c.type);
