import type { InterruptInfo } from '@troupe/core';
import { ElicitResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { elicitationFor } from './interrupts.js';
import type { CallExtra } from './progress-reporter.js';
import { RESUME_TOOL } from './resume-tool.js';

/** What the person answered, by interrupt id, and why asking stopped early (then nothing more is asked in this call). */
export interface Asked {
  responses: Record<string, unknown>;
  stopped: string | undefined;
}

/**
 * Asks the person each interrupt of a pause as an MCP elicitation, on the call's own stream, in
 * turn. A dismissed form, a declined input request, a form that was not answered in time, or an
 * interrupt no form can ask stops the asking: what was answered so far is kept, the rest stays
 * pending for the `resume` tool, and `stopped` says why.
 */
export async function askPerson(
  interrupts: readonly InterruptInfo[],
  extra: CallExtra,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Asked> {
  const responses: Record<string, unknown> = {};
  for (const interrupt of interrupts) {
    const form = elicitationFor(interrupt);
    if (!form)
      return {
        responses,
        stopped: `The input request '${interrupt.id}' needs an answer a form cannot ask (its responseSchema has nested fields): answer it with the '${RESUME_TOOL}' tool.`,
      };
    let reply;
    try {
      reply = await extra.sendRequest(
        {
          method: 'elicitation/create',
          params: { mode: 'form', message: form.message, requestedSchema: form.requestedSchema },
        },
        ElicitResultSchema,
        { signal, timeout: timeoutMs },
      );
    } catch (error) {
      if (signal.aborted) return { responses, stopped: 'The call was cancelled.' };
      const timedOut = error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout);
      return {
        responses,
        stopped: timedOut
          ? `No answer came within ${Math.round(timeoutMs / 1000)} s; the run still waits. Answer it with the '${RESUME_TOOL}' tool.`
          : `Asking the person failed (${error instanceof Error ? error.message : String(error)}); the run still waits. Answer it with the '${RESUME_TOOL}' tool.`,
      };
    }
    const answer = form.answerOf(reply.action, reply.content);
    if (!answer)
      return {
        responses,
        stopped: `The question was ${reply.action === 'decline' ? 'declined' : 'dismissed'} without an answer; the run still waits. Answer it with the '${RESUME_TOOL}' tool.`,
      };
    responses[interrupt.id] = answer.value;
  }
  return { responses, stopped: undefined };
}
