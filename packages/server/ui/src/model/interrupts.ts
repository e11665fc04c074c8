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

/** The code a confirmation asks to run, as the code execution tools send it in the payload. */
export interface CodeToReview {
  language: string;
  code: string;
  args: string[];
  files: string[];
}

/**
 * The code an approval is asked for (`execute_code`, skill scripts: the payload `{ language, code,
 * args?, files? }`), for the approval card to show as a code block; `undefined` for other interrupts.
 */
export function codeToReview(interrupt: InterruptInfo): CodeToReview | undefined {
  if (interrupt.kind !== 'confirmation') return undefined;
  const payload = interrupt.payload as Record<string, unknown> | null | undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { language, code, args, files } = payload;
  if (typeof language !== 'string' || typeof code !== 'string') return undefined;
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  return { language, code, args: strings(args), files: strings(files) };
}
