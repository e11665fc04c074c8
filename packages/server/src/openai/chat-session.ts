import { randomUUID } from 'node:crypto';
import { type BaseAgent, createEvent, type Event, type Session, type SessionService } from '@troupe/core';
import { MAX_ID_LENGTH } from '@troupe/core/hosting';
import { ADMIN } from '../auth.js';
import { HttpError } from '../http-error.js';
import type { ChatMessage } from './chat-message.js';

/** The user of the sessions of a server without auth (or of an admin token), as AG-UI's threads are `ag-ui`'s. */
export const OPENAI_USER = 'openai';

/** The request and response header that names the session a chat completion runs in. */
export const SESSION_HEADER = 'X-Session-Id';

/** The user whose sessions a request's chats are: the bearer token's, or {@link OPENAI_USER}. */
export function chatUser(principal: string): string {
  return principal === ADMIN ? OPENAI_USER : principal;
}

/** The session id a request names in {@link SESSION_HEADER}, if any. */
export function requestedSessionId(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const id = header.trim();
  if (id === '' || id.length > MAX_ID_LENGTH)
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `The ${SESSION_HEADER} header must name a session (1 to ${MAX_ID_LENGTH} characters); got ${id === '' ? 'an empty value' : `${id.length} characters`}. Send the id a previous answer's ${SESSION_HEADER} header gave, or leave the header out to start a new session.`,
      SESSION_HEADER,
    );
  return id;
}

/**
 * The session that {@link SESSION_HEADER} names, of this user. A session of another user is
 * answered exactly as one that does not exist (404), as everywhere on the server: session ids tell
 * nothing about other users.
 */
export async function existingSession(
  service: SessionService,
  key: { appName: string; userId: string; sessionId: string },
): Promise<Session> {
  const session = await service.getSession(key);
  if (!session)
    throw new HttpError(
      404,
      'SESSION_NOT_FOUND',
      `Session '${key.sessionId}' (the ${SESSION_HEADER} header) was not found for model '${key.appName}' and user '${key.userId}'. Send the id a previous answer's ${SESSION_HEADER} header gave, or leave the header out to start a new session from the request's messages.`,
      SESSION_HEADER,
    );
  return session;
}

/**
 * A new session holding the conversation the request brings before its last message: chat clients
 * keep no server state and send the whole history each time. User messages become the user's
 * events and assistant messages the app's root agent's (so its LlmAgent reads them as its own
 * turns), each user message opening an invocation of its own as a turn would. System and
 * developer messages are not kept (see {@link ChatMessage}).
 */
export async function seededSession(
  service: SessionService,
  key: { appName: string; userId: string },
  root: BaseAgent,
  history: readonly ChatMessage[],
): Promise<Session> {
  const session = await service.createSession(key);
  try {
    for (const event of historyEvents(history, root.name)) await service.appendEvent({ session, event });
  } catch (error) {
    // A store that failed midway keeps no half-seeded session.
    await service.deleteSession({ ...key, sessionId: session.id }).catch(() => undefined);
    throw error;
  }
  return session;
}

function historyEvents(history: readonly ChatMessage[], agentName: string): Event[] {
  const events: Event[] = [];
  let invocationId = newInvocationId();
  for (const message of history) {
    if (message.role === 'user') {
      invocationId = newInvocationId();
      events.push(createEvent({ invocationId, author: 'user', content: { role: 'user', parts: message.parts } }));
    } else if (message.role === 'assistant' && message.text !== '') {
      events.push(
        createEvent({
          invocationId,
          author: agentName,
          path: agentName,
          content: { role: 'model', parts: [{ text: message.text }] },
        }),
      );
    }
  }
  return events;
}

function newInvocationId(): string {
  return `e-${randomUUID()}`;
}
