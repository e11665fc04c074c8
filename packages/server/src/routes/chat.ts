import { Hono } from 'hono';
import { MAX_ID_LENGTH } from '@troupe/core/hosting';
import { threadSession } from '../ag-ui/thread.js';
import { chatResponse } from '../ai-sdk/chat-response.js';
import { readChatBody } from '../ai-sdk/chat-body.js';
import { startChat, type StartedChat } from '../ai-sdk/start-chat.js';
import { assertMayAccess } from '../auth.js';
import { clientGoneOf } from '../client-gone.js';
import { HttpError } from '../http-error.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { reportFailures } from './run.js';

/**
 * `POST /apps/{app}/users/{user}/sessions/{id}/chat`: the Vercel AI SDK's chat endpoint, for
 * `useChat` (its DefaultChatTransport pointed at this path). It takes `useChat`'s request, whose
 * last message is the new one, and answers with the run as a UI message stream (SSE, header
 * `x-vercel-ai-ui-message-stream: v1`). The session is the chat: created on first use with the
 * path's id. A confirmation becomes an approval request; the assistant message that comes back
 * with the answer resumes the same invocation. Runs execute in this process (with a queue too, as
 * AG-UI's do): their chunks stream to the client that asked. Auth, host and origin checks and body
 * limits are the other routes'.
 */
export function chatRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.post('/apps/:app/users/:user/sessions/:session/chat', async (c) => {
    const { app: appName, user: userId, session: sessionId } = c.req.param();
    assertMayAccess(c.get('principal'), userId);
    if (sessionId.length > MAX_ID_LENGTH) {
      throw new HttpError(
        400,
        'INVALID_REQUEST',
        `The chat id in the path has ${sessionId.length} characters; a session id has at most ${MAX_ID_LENGTH}. Use a shorter chat id.`,
      );
    }
    const body = await readChatBody(c);
    const runner = await ctx.registry.runner(appName);
    const key = { appName, userId, sessionId };
    const thread = await threadSession(ctx.sessionService, key);
    let started: StartedChat;
    try {
      started = await startChat(ctx, runner, thread.session, body, clientGoneOf(c));
    } catch (error) {
      // A refused request stores nothing, not even the session it made.
      if (thread.created) await ctx.sessionService.deleteSession(key).catch(() => undefined);
      throw error;
    }
    const { tracked, events, translator } = started;
    return chatResponse(tracked, events, translator, reportFailures(ctx, c));
  });

  return routes;
}
