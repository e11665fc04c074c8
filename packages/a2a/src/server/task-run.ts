import type { StreamResponse } from '@a2a-js/sdk';
import { type Event, redact, type RunResult } from '@troupe/core';
import type { LiveTask } from './live-task.js';
import { ResponseArtifacts } from './response-artifacts.js';
import { statusOf, type TaskOutcome } from './task-outcome.js';

/** A started run, as `runner.start` and `runner.startResume` return it. */
export type RunEvents = AsyncGenerator<Event, RunResult, undefined>;

/**
 * Runs a task to its end in the background: publishes `working`, an artifact update per thing an
 * agent says, and the final status the run ended with. Nothing here waits for a reader.
 */
export function driveTask(
  task: LiveTask,
  events: RunEvents,
  ids: { taskId: string; contextId: string },
  existingArtifacts: number,
): void {
  void (async () => {
    const artifacts = new ResponseArtifacts(ids, existingArtifacts);
    task.publish(statusUpdate(ids, { state: 'working' }));
    let result: RunResult | undefined;
    let lastError: Event | undefined;
    let thrown: unknown;
    // The final status is dated by the run's last stored event, as the stored task dates it, so the
    // status (and its message id) reads the same live and from the store.
    let lastStoredAt = Date.now();
    try {
      for (;;) {
        const step = await events.next();
        if (step.done) {
          result = step.value;
          break;
        }
        if (!step.value.partial) lastStoredAt = step.value.timestamp;
        if (step.value.errorCode !== undefined) lastError = step.value;
        for (const update of artifacts.updatesFor(step.value))
          task.publish({ payload: { $case: 'artifactUpdate', value: update } });
      }
    } catch (error) {
      // A failed run yields its (stored) error event, then throws: the event says it all.
      thrown = error;
    }
    for (const update of artifacts.flush()) task.publish({ payload: { $case: 'artifactUpdate', value: update } });
    task.publish(statusUpdate(ids, outcomeOf(result, lastError, thrown, lastStoredAt)));
  })()
    .catch((error: unknown) => {
      // An output that cannot be copied (not plain JSON) still ends the task, as a failure that says so.
      const message = redact(
        `The task's result could not be sent: ${error instanceof Error ? error.message : String(error)}`,
      );
      task.publish(statusUpdate(ids, { state: 'failed', code: 'INVALID_AGENT_RESPONSE', message, at: Date.now() }));
    })
    .finally(() => task.end());
}

function statusUpdate(ids: { taskId: string; contextId: string }, outcome: TaskOutcome): StreamResponse {
  return { payload: { $case: 'statusUpdate', value: { ...ids, status: statusOf(outcome, ids), metadata: undefined } } };
}

/** How the run ended, from its result, or from the error event it stored before it threw. */
function outcomeOf(
  result: RunResult | undefined,
  lastError: Event | undefined,
  thrown: unknown,
  at: number,
): TaskOutcome {
  if (result?.status === 'completed') return { state: 'completed', output: result.output, at };
  if (result?.status === 'interrupted') return { state: 'input-required', interrupts: result.interrupts, at };
  // The stored error event's message, which the runner already redacted (the thrown error is not).
  const code = lastError?.errorCode ?? (result?.status === 'cancelled' ? 'CANCELLED' : 'ERROR');
  const message =
    lastError?.errorMessage ??
    redact(thrown instanceof Error ? thrown.message : `The run ended with status '${result?.status ?? 'failed'}'.`);
  if (code === 'CANCELLED') return { state: 'canceled', message, at };
  if (code === 'GUARDRAIL_TRIPPED') return { state: 'rejected', message, at };
  return { state: 'failed', code, message, at };
}
