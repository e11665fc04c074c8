import type { Event, InterruptInfo } from '../events/event.js';
import { ConfigurationError, type SessionErrorOptions, TroupeError } from '../errors.js';
import type { SessionKey } from '../sessions/session.js';
import { validate } from '../utils/schema.js';
import { resumeAnswers } from '../agents/progress.js';
import { REQUEST_INPUT_FUNCTION_CALL_NAME, unwrapAnswer } from '../workflow/request-input.js';

export function isResumeRecord(event: Event): boolean {
  return resumeAnswers(event) !== undefined;
}

/**
 * The interrupts still waiting for an answer: those of the session's latest invocation raised
 * after its last resume (a resumed run raises every still-open interrupt again).
 */
export function openInterrupts(events: readonly Event[], invocationId?: string): InterruptInfo[] {
  const target = invocationId ?? events[events.length - 1]?.invocationId;
  if (target === undefined) return [];
  const open = new Map<string, InterruptInfo>();
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.invocationId !== target) {
      if (invocationId === undefined) break;
      continue;
    }
    if (isResumeRecord(e) || (e.author === 'user' && e.content)) break;
    if (e.interrupt && !open.has(e.interrupt.id)) open.set(e.interrupt.id, e.interrupt);
  }
  return [...open.values()].reverse();
}

/** The invocation whose interrupt `interruptId` was answered (by a stored resume record), if it was. */
export function answeredIn(events: readonly Event[], interruptId: string): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const record = resumeAnswers(events[i]!);
    if (record && Object.hasOwn(record.resume.responses, interruptId)) return events[i]!.invocationId;
  }
  return undefined;
}

/** Every answer given so far in an invocation, by interrupt id. */
export function answersOf(events: readonly Event[], invocationId: string): Map<string, unknown> {
  const answers = new Map<string, unknown>();
  for (const e of events) {
    const record = e.invocationId === invocationId ? resumeAnswers(e) : undefined;
    if (record) for (const [id, value] of Object.entries(record.resume.responses)) answers.set(id, value);
  }
  return answers;
}

/** An answer that does not fit its interrupt, or an interrupt that is not open. */
export class InterruptResponseError extends TroupeError {
  /** The session, when known. */
  readonly session: SessionKey | undefined;

  constructor(message: string, options?: SessionErrorOptions) {
    super('INTERRUPT_RESPONSE', message, options);
    this.session = options?.session;
  }
}

/**
 * Checks answers before anything is stored: each id must be open, a confirmation must be a
 * boolean or `{ confirmed: boolean, payload? }`, and an input must match its `responseSchema`.
 * Returns the answers in their stored form.
 */
export async function checkResponses(
  open: readonly InterruptInfo[],
  responses: Record<string, unknown>,
  session?: SessionKey,
): Promise<Record<string, unknown>> {
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
    throw new ConfigurationError(
      `resume's responses must be an object mapping interrupt ids to answers; got ${JSON.stringify(responses)}.`,
    );
  }
  const byId = new Map(open.map((i) => [i.id, i]));
  const checked: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(responses)) {
    const interrupt = byId.get(id);
    if (!interrupt) {
      const openIds = open.map((i) => i.id).join(', ') || 'none';
      throw new InterruptResponseError(
        `There is no open interrupt '${id}' in this session. Open interrupts: ${openIds}.`,
        { ...(session ? { session } : {}), remedy: 'Use the ids from RunResult.interrupts.' },
      );
    }
    if (interrupt.kind === 'confirmation') {
      checked[id] = normalizeConfirmation(id, value);
    } else if (interrupt.toolName === REQUEST_INPUT_FUNCTION_CALL_NAME) {
      // A workflow's request (ADK's rules): `{ result: v }` is v; only object answers are checked.
      const answer = unwrapAnswer(value);
      if (interrupt.responseSchema && typeof answer === 'object' && answer !== null) {
        const result = await validate(interrupt.responseSchema, answer);
        if (!result.ok)
          throw new InterruptResponseError(
            `The answer to input request '${id}' does not match its responseSchema: ${result.message}. The run stays paused.`,
            { ...(session ? { session } : {}), remedy: 'Answer again with an object of that shape, or with text.' },
          );
        checked[id] = result.value;
      } else checked[id] = answer;
    } else {
      if (interrupt.responseSchema) {
        const result = await validate(interrupt.responseSchema, value);
        if (!result.ok)
          throw new InterruptResponseError(
            `The answer to input request '${id}' does not match its responseSchema: ${result.message}.`,
          );
      }
      checked[id] = value;
    }
  }
  return checked;
}

function normalizeConfirmation(id: string, value: unknown): { confirmed: boolean; payload?: unknown } {
  if (typeof value === 'boolean') return { confirmed: value };
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { confirmed?: unknown }).confirmed === 'boolean'
  ) {
    const { confirmed, payload } = value as { confirmed: boolean; payload?: unknown };
    return payload === undefined ? { confirmed } : { confirmed, payload };
  }
  throw new InterruptResponseError(
    `The answer to confirmation '${id}' must be true, false or { confirmed: boolean, payload? }; got ${JSON.stringify(value)}.`,
  );
}
