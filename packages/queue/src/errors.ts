import { TroupeError } from '@troupe/core';

/** No run with this id is recorded (it never existed, or its session was deleted). */
export class RunNotFoundError extends TroupeError {
  constructor(runId: string) {
    super(
      'RUN_NOT_FOUND',
      `No run '${runId}' is recorded: it never existed or its session was deleted. Use a runId that enqueue returned, or list the session's runs; a runId you chose is found with its session (status(runId, session)).`,
    );
  }
}

/** Redis refused a command the queue needed; nothing was queued. */
export class QueueUnavailableError extends TroupeError {
  constructor(what: string, cause: unknown) {
    super(
      'QUEUE_UNAVAILABLE',
      `Could not ${what}: Redis did not answer (${cause instanceof Error ? cause.message : String(cause)}). Check that Redis runs and is reachable, then try again.`,
      { cause },
    );
  }
}
