import type { RunAgentInput } from '@ag-ui/core';
import { type InterruptInfo, isClientToolInterrupt } from '@troupe/core';
import { interruptedCallId } from './interrupts.js';
import { toolMessagesById, toolResultOf } from './messages.js';

/** The answers an input gives to a thread's open interrupts, in the runner's terms. */
export interface ResumeAnswers {
  /** Answers by interrupt id, as `runner.resume` takes them. */
  responses: Record<string, unknown>;
  /** Interrupts answered with a value (resolved entries, client tool results). */
  answered: ReadonlySet<string>;
  /** Interrupts the input abandoned (`status: 'cancelled'`). */
  cancelled: ReadonlySet<string>;
  /** Abandoned input requests: Troupe has no answer that declines one. */
  cancelledInputs: readonly InterruptInfo[];
  /** AG-UI ids of the client tool calls answered, whose results the client has already. */
  clientCalls: ReadonlySet<string>;
}

/**
 * Reads the input's answers to the open interrupts:
 *
 * - a confirmation: a resume entry `resolved` with `true`, `false` or `{ confirmed, payload? }`
 *   (no payload approves), or `cancelled`, which rejects the call (the tool does not run and the
 *   model is told);
 * - an input request: a resume entry `resolved` with the value;
 * - a client tool call: the tool message that answers it (AG-UI's way for frontend tools), or a
 *   resume entry, `resolved` with the result or `cancelled` (the model is told it was declined).
 *
 * Entries for interrupts that are not open are ignored, as AG-UI asks of unrecognised entries.
 */
export function resumeAnswersOf(open: readonly InterruptInfo[], input: RunAgentInput): ResumeAnswers {
  const entries = new Map((input.resume ?? []).map((entry) => [entry.interruptId, entry]));
  const toolMessages = toolMessagesById(input.messages);
  const responses: Record<string, unknown> = {};
  const answered = new Set<string>();
  const cancelled = new Set<string>();
  const cancelledInputs: InterruptInfo[] = [];
  const clientCalls = new Set<string>();
  for (const interrupt of open) {
    const { id } = interrupt;
    const entry = entries.get(id);
    if (isClientToolInterrupt(interrupt)) {
      const callId = interruptedCallId(interrupt);
      const message = toolMessages.get(callId);
      if (entry?.status === 'cancelled') {
        responses[id] = { error: `The user declined this call of tool '${interrupt.toolName}'; it did not run.` };
        cancelled.add(id);
      } else if (entry || message) {
        responses[id] = entry ? (entry.payload ?? null) : toolResultOf(message!);
        answered.add(id);
      } else {
        continue;
      }
      clientCalls.add(callId);
    } else if (entry?.status === 'cancelled') {
      cancelled.add(id);
      if (interrupt.kind === 'confirmation') responses[id] = false;
      else cancelledInputs.push(interrupt);
    } else if (entry) {
      answered.add(id);
      responses[id] = entry.payload === undefined ? (interrupt.kind === 'confirmation' ? true : null) : entry.payload;
    }
  }
  return { responses, answered, cancelled, cancelledInputs, clientCalls };
}
