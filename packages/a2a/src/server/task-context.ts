import type { Task } from '@a2a-js/sdk';
import { type BaseAgent, type Runner, type Session } from '@troupe/core';
import type { ResolvedA2aOptions } from './a2a-app-options.js';
import { taskNotFound } from './a2a-errors.js';
import type { LiveTasks } from './live-tasks.js';
import { storedTask } from './stored-task.js';
import { sessionIdOfTask } from './task-ids.js';

/** What every task operation of one app shares. */
export interface TaskContext {
  rootAgent: BaseAgent;
  runner: Runner;
  live: LiveTasks;
  options: ResolvedA2aOptions;
}

/** A task of the caller, found in its session: the session read now and the task it holds. */
export interface FoundTask {
  session: Session;
  task: Task;
}

/**
 * Finds a task of `userId` in the store, or throws `TaskNotFoundError` (the same for an unknown id
 * and for another user's task).
 */
export async function findTask(ctx: TaskContext, taskId: string, userId: string): Promise<FoundTask> {
  const sessionId = sessionIdOfTask(taskId);
  if (sessionId === undefined) throw taskNotFound(taskId);
  const session = await ctx.runner.sessionService.getSession({ appName: ctx.runner.appName, userId, sessionId });
  const task = session && storedTask(session, taskId, ctx.live.get(taskId, userId) !== undefined);
  if (!session || !task) throw taskNotFound(taskId);
  return { session, task };
}

/** Keeps the `historyLength` most recent messages (all when unset, none for 0), as A2A asks. */
export function limitHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength !== undefined && historyLength >= 0)
    task.history = historyLength === 0 ? [] : task.history.slice(-historyLength);
  return task;
}
