import type { Interrupt, RunFinishedOutcome } from '@ag-ui/core';
import { type InterruptInfo, isClientToolInterrupt } from '@troupe/core';

/**
 * The AG-UI id of a function call: the calling agent's path and the call's own id. Models number
 * their calls per model (two agents of a ParallelAgent can both make `call_1`), and AG-UI needs
 * ids unique in the thread. It is also the id of the call's first interrupt, so a tool message
 * that answers a client tool call names the interrupt it answers.
 */
export function toolCallIdOf(agentPath: string, callId: string): string {
  return `${agentPath}:${callId}`;
}

/** The AG-UI id of the call an interrupt paused. */
export function interruptedCallId(interrupt: InterruptInfo): string {
  return toolCallIdOf(interrupt.agentPath, interrupt.toolCallId);
}

/** What a confirmation's answer may be: `true`/`false`, or `{ confirmed, payload? }`. */
const CONFIRMATION_SCHEMA = Object.freeze({
  description: 'true approves the tool call, false rejects it; or { confirmed, payload } to pass details along.',
  oneOf: [
    { type: 'boolean' },
    { type: 'object', properties: { confirmed: { type: 'boolean' }, payload: {} }, required: ['confirmed'] },
  ],
});

/** A Troupe interrupt (a confirmation or an input request of a tool) as an AG-UI interrupt. */
export function agUiInterrupt(interrupt: InterruptInfo): Interrupt {
  const { id, kind, toolName, args, agentPath, hint, message, payload, responseSchema } = interrupt;
  const prompt =
    kind === 'confirmation'
      ? (hint ?? `Allow tool '${toolName}' to run with ${JSON.stringify(args)}?`)
      : (message ?? `Tool '${toolName}' needs an answer.`);
  const schema = kind === 'confirmation' ? CONFIRMATION_SCHEMA : responseSchema;
  return {
    id,
    reason: kind,
    message: prompt,
    toolCallId: interruptedCallId(interrupt),
    ...(schema ? { responseSchema: { ...schema } } : {}),
    metadata: { troupe: { kind, toolName, args, agentPath, ...(payload === undefined ? {} : { payload }) } },
  };
}

/**
 * How a run that paused ends on the wire. Questions for a person end it with the interrupt
 * outcome; client tool calls alone end it as a success whose `pendingToolCallIds` names them,
 * since AG-UI answers frontend tools through the next input's messages, not through resume.
 */
export function pausedOutcome(interrupts: readonly InterruptInfo[]): RunFinishedOutcome {
  const asked = interrupts.filter((interrupt) => !isClientToolInterrupt(interrupt));
  if (asked.length > 0) return { type: 'interrupt', interrupts: asked.map(agUiInterrupt) };
  return { type: 'success', pendingToolCallIds: interrupts.map(interruptedCallId) };
}
