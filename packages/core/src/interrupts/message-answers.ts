import { userContent, type Content } from '../events/content.js';
import type { InterruptInfo } from '../events/event.js';
import { REQUEST_INPUT_FUNCTION_CALL_NAME } from '../workflow/request-input.js';

/**
 * The answers a new message gives to open interrupts, as ADK's clients send them: functionResponse
 * parts whose id names an open interrupt, or (for a workflow's request for input) plain text while
 * exactly one interrupt is open. Undefined when the message answers nothing (it is a new turn, and
 * the runner refuses it while interrupts are open).
 */
export function answersInMessage(
  open: readonly InterruptInfo[],
  message: string | Content | undefined,
): { responses: Record<string, unknown>; message?: Content } | undefined {
  if (message === undefined) return undefined;
  const content = typeof message === 'string' ? userContent(message) : message;
  const parts = Array.isArray(content?.parts) ? content.parts : [];
  const ids = new Set(open.map((i) => i.id));
  const responses: Record<string, unknown> = {};
  let answered = false;
  for (const part of parts) {
    if (!('functionResponse' in part)) continue;
    const { id, response } = part.functionResponse;
    if (id !== undefined && ids.has(id)) {
      responses[id] = response;
      answered = true;
    }
  }
  if (answered) return { responses };
  const textOnly = parts.length > 0 && parts.every((p) => 'text' in p);
  if (!textOnly || open.length !== 1 || open[0]!.toolName !== REQUEST_INPUT_FUNCTION_CALL_NAME) return undefined;
  const text = parts.map((p) => ('text' in p ? p.text : '')).join('');
  return { responses: { [open[0]!.id]: text }, message: { role: 'user', parts } };
}
