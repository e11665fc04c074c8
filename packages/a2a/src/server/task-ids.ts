import { randomBytes } from 'node:crypto';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

// A task id is the invocation id of its run, and names its session (the A2A context) too:
// `<sessionId>.<nonce>`. So `tasks/get` finds a task from its id alone, in any process that shares
// the store, without an index of its own; and the caller's user scopes the lookup, so another
// user's task id finds nothing. Invocation ids allow `A-Za-z0-9._:-`, at most 128 characters.
const CONTEXT_ID = /^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,99}$/;
const NONCE_LENGTH = 16;

/** A new task id in the context (session) `sessionId`. */
export function newTaskId(sessionId: string): string {
  return `${sessionId}.${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, NONCE_LENGTH)}`;
}

/** The session a task id belongs to; undefined for an id this server never made. */
export function sessionIdOfTask(taskId: string): string | undefined {
  const dot = taskId.lastIndexOf('.');
  if (dot <= 0 || taskId.length - dot - 1 !== NONCE_LENGTH) return undefined;
  const sessionId = taskId.slice(0, dot);
  return CONTEXT_ID.test(sessionId) ? sessionId : undefined;
}

/** Refuses a client's contextId that cannot name a session here, naming the rule and the fix. */
export function checkContextId(contextId: string): void {
  if (!CONTEXT_ID.test(contextId)) {
    throw new RequestMalformedError(
      `message.contextId ${JSON.stringify(contextId.slice(0, 120))} cannot name a conversation here: use 1 to 100 characters of A-Z, a-z, 0-9, '.', '_', ':' and '-' (not starting with '.'), or leave contextId out to start a new conversation and use the one the server returns.`,
    );
  }
}

/**
 * The task id a request names (`tasks/get`, `tasks/cancel`, `tasks/resubscribe` and their 1.0
 * names), refused as a malformed request when it is missing: the 0.3 transport passes the params
 * through as the client sent them.
 */
export function requestedTaskId(id: unknown): string {
  if (typeof id === 'string' && id !== '') return id;
  throw new RequestMalformedError(
    `params.id is ${id === '' ? 'empty' : id === undefined ? 'missing' : `${typeof id}, not a string`}; give the id of a task this agent returned to you (Task.id), e.g. { "id": "<task id>" }.`,
  );
}
