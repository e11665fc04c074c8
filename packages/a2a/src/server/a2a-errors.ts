import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { TroupeError } from '@troupe/core';

/**
 * The A2A error for what the runner refused before a run started. The runner's message already
 * names the problem and the fix; it travels as is, under the JSON-RPC code that fits.
 */
export function toA2aError(error: unknown): unknown {
  if (error instanceof A2AError || !(error instanceof TroupeError)) return error;
  switch (error.code) {
    case 'CONFIGURATION':
    case 'INTERRUPT_RESPONSE':
    case 'INTERRUPT_ANSWERED':
    case 'INPUT_VALIDATION':
    case 'INVALID_STATE_KEY':
      return new RequestMalformedError({ message: error.message, cause: error });
    case 'SESSION_BUSY':
      return new UnsupportedOperationError({
        message: `This conversation (contextId) is running another task right now, and it runs one task at a time. Wait for that task to end (tasks/get), or send the message without contextId to start a new conversation. (${error.message})`,
        cause: error,
      });
    default:
      return error;
  }
}

/**
 * The answer for a task id that does not exist, or that belongs to another user: the same in both
 * cases, so that a task id tells nothing about other users' tasks.
 */
export function taskNotFound(taskId: string): TaskNotFoundError {
  return new TaskNotFoundError(
    `There is no task '${taskId.slice(0, 200)}' for you. Use the id of a task this agent returned to you (Task.id); a new message without taskId starts a new task.`,
  );
}
