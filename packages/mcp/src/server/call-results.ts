import { type Event, type InterruptInfo, isFinalResponse, type RunResult, textOf } from '@troupe/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { interruptPrompt, pendingInterrupt } from './interrupts.js';
import { isRecord } from './schemas.js';

/**
 * A completed run as a tool result: the final text (the last answer an agent gave in the run, else
 * its output as text) and, when the output is an object (an agent with an `outputSchema`), that
 * object as `structuredContent`; `_meta.sessionId` names the session to continue.
 */
export function completedResult(result: RunResult, sessionId: string): CallToolResult {
  const output = result.output;
  return {
    content: [{ type: 'text', text: finalText(result.events, output) }],
    ...(isRecord(output) ? { structuredContent: output } : {}),
    _meta: { sessionId },
  };
}

/**
 * A run paused for a person, returned to the client to answer with the `resume` tool: the prompt as
 * text, the interrupt as `structuredContent.interrupt` (every pending one in `interrupts` when there
 * are several), `isError: false`. `note` says first why it was not asked in the call.
 */
export function pendingResult(interrupts: readonly InterruptInfo[], sessionId: string, note?: string): CallToolResult {
  const prompts = interrupts.map(interruptPrompt).join('\n');
  const all = interrupts.map(pendingInterrupt);
  return {
    content: [{ type: 'text', text: note === undefined ? prompts : `${note}\n${prompts}` }],
    structuredContent: { interrupt: all[0], ...(all.length > 1 ? { interrupts: all } : {}) },
    isError: false,
    _meta: { sessionId },
  };
}

/** A run's failure as its stored error event (or the error it threw) says it. */
export interface RunError {
  code: string;
  message: string;
}

/** A run that ended without an answer (failed, cancelled, a limit or a guardrail): its stored error, as a tool error. */
export function endedResult(
  status: RunResult['status'],
  error: RunError | undefined,
  sessionId: string,
): CallToolResult {
  const code = error?.code ?? (status === 'cancelled' ? 'CANCELLED' : 'ERROR');
  const message = error?.message || `The run ended with status '${status}'.`;
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    _meta: { sessionId, errorCode: code },
  };
}

/** A call refused before anything ran (bad arguments, an unknown session): the reason, as a tool error. */
export function refusedResult(message: string, sessionId?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    ...(sessionId === undefined ? {} : { _meta: { sessionId } }),
  };
}

/** The text of the last answer an agent gave in the run; else the run's output as text; else nothing. */
function finalText(events: readonly Event[], output: unknown): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author === 'user' || event.errorCode !== undefined || event.actions.compaction || !isFinalResponse(event))
      continue;
    const text = textOf(event);
    if (text !== '') return text;
  }
  if (output === undefined) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}
