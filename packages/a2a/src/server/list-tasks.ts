import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Session } from '@troupe/core';
import { storedTask } from './stored-task.js';
import { limitHistory, type TaskContext } from './task-context.js';
import { sessionIdOfTask } from './task-ids.js';

/**
 * `ListTasks` (A2A 1.0): the caller's tasks, in one conversation (`contextId`) or all of them,
 * most recently updated first, filtered by state and time, a page at a time. Reads the store.
 */
export async function listTasks(
  ctx: TaskContext,
  params: ListTasksRequest,
  userId: string,
): Promise<ListTasksResponse> {
  const pageSize = params.pageSize ?? 50;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
    throw new RequestMalformedError(`pageSize is ${pageSize}; use a whole number from 1 to 100 (default 50).`);
  const offset =
    params.pageToken === '' ? 0 : Number.parseInt(Buffer.from(params.pageToken, 'base64url').toString(), 10);
  if (!Number.isInteger(offset) || offset < 0)
    throw new RequestMalformedError(
      `pageToken ${JSON.stringify(params.pageToken.slice(0, 100))} is not one this server gave; pass the nextPageToken of the previous page, or none for the first.`,
    );
  const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
  if (after !== undefined && Number.isNaN(after))
    throw new RequestMalformedError(
      `statusTimestampAfter ${JSON.stringify(params.statusTimestampAfter)} is not an ISO 8601 time, e.g. 2026-01-31T12:00:00Z.`,
    );

  const tasks = (await sessionsOf(ctx, params.contextId, userId))
    .flatMap((session) => tasksIn(ctx, session, userId))
    .filter((task) => params.status === TaskState.TASK_STATE_UNSPECIFIED || task.status?.state === params.status)
    .filter((task) => after === undefined || Date.parse(task.status?.timestamp ?? '') >= after)
    .sort(
      (a, b) => Date.parse(b.status?.timestamp ?? '') - Date.parse(a.status?.timestamp ?? '') || (a.id < b.id ? -1 : 1),
    );
  const page = tasks.slice(offset, offset + pageSize).map((task) => limitHistory(task, params.historyLength));
  const next = offset + pageSize < tasks.length ? Buffer.from(String(offset + pageSize)).toString('base64url') : '';
  return { tasks: page, nextPageToken: next, pageSize, totalSize: tasks.length };
}

async function sessionsOf(ctx: TaskContext, contextId: string, userId: string): Promise<Session[]> {
  const { sessionService, appName } = ctx.runner;
  const ids =
    contextId !== '' ? [contextId] : (await sessionService.listSessions({ appName, userId })).sessions.map((s) => s.id);
  const sessions = await Promise.all(ids.map((sessionId) => sessionService.getSession({ appName, userId, sessionId })));
  return sessions.filter((s): s is Session => s !== undefined);
}

/** The A2A tasks of a session: its invocations whose ids this server made for it. */
function tasksIn(ctx: TaskContext, session: Session, userId: string): Task[] {
  const ids = new Set(session.events.map((e) => e.invocationId).filter((id) => sessionIdOfTask(id) === session.id));
  return [...ids].map((id) => ctx.live.get(id, userId)?.snapshot() ?? storedTask(session, id, false)!);
}
