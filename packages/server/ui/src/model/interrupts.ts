import type { InterruptInfo, WireEvent } from '../types.js';

/** True for the user-authored event that records the answers given on resume. */
export function isResumeRecord(event: WireEvent): boolean {
  return (
    event.author === 'user' &&
    typeof event.actions.agentState?.resume === 'object' &&
    event.actions.agentState.resume !== null
  );
}

/** The answers a resume record carries, by interrupt id. */
export function resumeAnswers(event: WireEvent): Record<string, unknown> {
  const resume = event.actions.agentState?.resume as { responses?: Record<string, unknown> } | undefined;
  return resume?.responses ?? {};
}

/**
 * The interrupts still waiting for an answer, read from the events as the runner reads them: those
 * of the latest invocation raised after its last resume (a resumed run raises every interrupt that
 * is still open again), oldest first.
 */
export function openInterrupts(events: readonly WireEvent[]): InterruptInfo[] {
  const latest = events.at(-1)?.invocationId;
  if (latest === undefined) return [];
  const open = new Map<string, InterruptInfo>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.invocationId !== latest) break;
    if (isResumeRecord(event) || (event.author === 'user' && event.content)) break;
    if (event.interrupt && !open.has(event.interrupt.id)) open.set(event.interrupt.id, event.interrupt);
  }
  return [...open.values()].reverse();
}

/**
 * The answer to send for an input request typed in a text box: the text itself when the request
 * expects a string (or says nothing), else the text read as JSON (a number, object, ...), falling
 * back to the text when it is not JSON, so the server's schema check explains what is wrong.
 */
export function inputAnswer(interrupt: InterruptInfo, text: string): unknown {
  const type = interrupt.responseSchema?.type;
  if (type === undefined || type === 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
