import type { Context } from 'hono';
import type { Content, Session } from '@troupe/core';
import { clientGoneOf } from '../client-gone.js';
import { reportFailures } from '../routes/run.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { readChatRequest } from './chat-request.js';
import { chatUser, existingSession, requestedSessionId, seededSession, SESSION_HEADER } from './chat-session.js';
import { type ChatTurn, planChatTurn } from './chat-turn.js';
import { completeAnswer } from './complete-answer.js';
import { completionMeta } from './completion-shapes.js';
import { appOfModel } from './models.js';
import { streamAnswer } from './stream-answer.js';
import { startChatTurn, type StartedChatTurn } from './turn-events.js';

/**
 * `POST /v1/chat/completions`: one turn of the app named as the model, in the session named by
 * the `X-Session-Id` header, or in a new one seeded from the request's earlier messages (its id in
 * the response's `X-Session-Id`). The last message is the user's: a new turn, or the answer to the
 * question the session waits for. Everything that can be refused is refused before anything is
 * stored; a new session made for a turn that is then refused is deleted again.
 */
export async function chatCompletions(ctx: ServerContext, c: Context<ServerEnv>): Promise<Response> {
  const request = await readChatRequest(c);
  const runner = await appOfModel(ctx.registry, request.model);
  const userId = chatUser(c.get('principal'));
  const sessionId = requestedSessionId(c.req.header(SESSION_HEADER));
  const lastIndex = request.messages.length - 1;
  const last = request.messages[lastIndex]!;
  const message: Content = { role: 'user', parts: last.role === 'user' ? last.parts : [] };

  let session: Session;
  let turn: ChatTurn;
  let created = false;
  if (sessionId !== undefined) {
    session = await existingSession(ctx.sessionService, { appName: request.model, userId, sessionId });
    turn = planChatTurn(session, message, `messages[${lastIndex}].content`);
  } else {
    const history = request.messages.slice(0, lastIndex);
    session = await seededSession(ctx.sessionService, { appName: request.model, userId }, runner.agent, history);
    turn = { kind: 'run', message };
    created = true;
  }
  const forget = async () => {
    if (created)
      await ctx.sessionService
        .deleteSession({ appName: session.appName, userId, sessionId: session.id })
        .catch(() => undefined);
  };

  const onFailure = reportFailures(ctx, c);
  let started: StartedChatTurn;
  try {
    started = await startChatTurn(ctx, {
      runner,
      session,
      turn,
      streaming: request.stream,
      clientGone: clientGoneOf(c),
      onFailure,
    });
  } catch (error) {
    await forget();
    throw error;
  }
  const meta = completionMeta(request.model);
  const headers = { [SESSION_HEADER]: session.id };
  try {
    return request.stream
      ? await streamAnswer({ started, meta, includeUsage: request.includeUsage, headers, onFailure })
      : await completeAnswer(c, started, meta, headers);
  } catch (error) {
    // Refused by a worker's runner before the turn did anything (see StartedChatTurn.events).
    await forget();
    throw error;
  }
}
