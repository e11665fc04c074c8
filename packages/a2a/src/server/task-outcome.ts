import { TaskState, type Part as A2aPart, type TaskStatus } from '@a2a-js/sdk';
import type { InterruptInfo } from '@troupe/core';
import { interruptParts } from './interrupt-parts.js';
import { agentMessage, dataPart, textPart } from './parts.js';

/**
 * Where a task stands, in Troupe's terms: what the session's events say (or, for a run of this
 * process, what the runner said). One value for both, so a task reads the same live and later.
 */
export type TaskOutcome =
  | { state: 'submitted' }
  | { state: 'working' }
  | { state: 'completed'; output: unknown; at: number }
  | { state: 'input-required'; interrupts: InterruptInfo[]; at: number }
  | { state: 'failed'; code: string; message: string; at: number }
  | { state: 'canceled'; message: string; at: number }
  /** A guardrail's tripwire blocked the run (Troupe status `'blocked'`): the agent refused the task. */
  | { state: 'rejected'; message: string; at: number };

/** The states after which a task takes no more messages. */
export function isTerminal(outcome: TaskOutcome): boolean {
  return (
    outcome.state === 'completed' ||
    outcome.state === 'failed' ||
    outcome.state === 'canceled' ||
    outcome.state === 'rejected'
  );
}

const STATES: Readonly<Record<TaskOutcome['state'], TaskState>> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

/**
 * The A2A status of an outcome. Its message carries what a client acts on: the run's output when
 * completed (text, or a data part for structured output), the interrupts when input is required,
 * the stored error when it failed or was cancelled.
 */
export function statusOf(outcome: TaskOutcome, ids: { taskId: string; contextId: string }): TaskStatus {
  const at = 'at' in outcome ? outcome.at : Date.now();
  const parts = statusParts(outcome);
  const message = parts
    ? agentMessage(
        { messageId: `${ids.taskId}.status.${outcome.state}.${at}`, ...ids },
        parts,
        'code' in outcome ? { errorCode: outcome.code } : undefined,
      )
    : undefined;
  return { state: STATES[outcome.state], message, timestamp: new Date(at).toISOString() };
}

function statusParts(outcome: TaskOutcome): A2aPart[] | undefined {
  switch (outcome.state) {
    case 'submitted':
    case 'working':
      return undefined;
    case 'completed':
      if (outcome.output === undefined || outcome.output === '') return undefined;
      return [typeof outcome.output === 'string' ? textPart(outcome.output) : dataPart(outcome.output)];
    case 'input-required':
      return interruptParts(outcome.interrupts);
    case 'failed':
    case 'canceled':
    case 'rejected':
      return [textPart(outcome.message)];
  }
}
