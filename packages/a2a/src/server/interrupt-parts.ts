import type { Part as A2aPart } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { InterruptInfo } from '@troupe/core';
import { dataPart, textPart, type IncomingParts } from './parts.js';

/**
 * The `metadata.type` of the data parts that carry Troupe interrupts in the message of an
 * `input-required` status: `{ interruptId, kind, toolName, args, hint?, message?, payload?,
 * responseSchema?, agentPath, toolCallId }` each (what `RemoteA2aAgent` reads).
 */
export const A2A_INTERRUPT_PART_TYPE = 'troupe.interrupt';

/**
 * The parts of an `input-required` status: one line per interrupt for people and models to read,
 * then each interrupt as a data part for programs.
 */
export function interruptParts(interrupts: readonly InterruptInfo[]): A2aPart[] {
  const lines = interrupts.map((i) => `- ${question(i)}`);
  const first = interrupts[0];
  const example =
    first?.kind === 'confirmation'
      ? `{"interruptId": "${first.id}", "confirmed": true}`
      : `{"interruptId": "${first?.id ?? '<id>'}", "value": <answer>}`;
  const text = `Waiting for ${interrupts.length === 1 ? 'an answer' : `${interrupts.length} answers`}:\n${lines.join('\n')}\nAnswer with a message on this task holding a data part per answer, e.g. ${example}.`;
  return [textPart(text), ...interrupts.map((i) => dataPart(peerAsk(i), { type: A2A_INTERRUPT_PART_TYPE }))];
}

/** An interrupt as the data part carries it. */
export function peerAsk(interrupt: InterruptInfo): Record<string, unknown> {
  const { id, ...rest } = interrupt;
  return { interruptId: id, ...rest };
}

function question(interrupt: InterruptInfo): string {
  const call = `${interrupt.toolName}(${JSON.stringify(interrupt.args)})`;
  if (interrupt.kind === 'input') return `${interrupt.message ?? `Input for ${call}`} (interrupt '${interrupt.id}')`;
  return `${interrupt.hint ?? `Approve ${call}?`} (interrupt '${interrupt.id}': true or false)`;
}

/**
 * The answers a client's message gives to the open interrupts of a task, by interrupt id: data parts
 * `{ interruptId, confirmed, payload? }` (a confirmation) or `{ interruptId, value }` (an input
 * request), or one `{ responses: { <interrupt id>: answer } }`; or, when one interrupt is open, the
 * answer alone (a boolean or `{ confirmed }` for a confirmation; a data part or the text for an
 * input request).
 */
export function answersOf(
  incoming: IncomingParts,
  open: readonly InterruptInfo[],
  taskId: string,
): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const value of incoming.data) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const v = value as Record<string, unknown>;
    if (typeof v.interruptId === 'string') {
      answers[v.interruptId] =
        'value' in v
          ? v.value
          : v.payload === undefined
            ? { confirmed: v.confirmed }
            : { confirmed: v.confirmed, payload: v.payload };
    } else if ('responses' in v) {
      if (typeof v.responses !== 'object' || v.responses === null || Array.isArray(v.responses)) {
        throw new RequestMalformedError(
          `The data part's responses is ${JSON.stringify(v.responses)}; it must map interrupt ids to answers, e.g. {"responses": {"${open[0]?.id ?? '<id>'}": true}}.`,
        );
      }
      Object.assign(answers, v.responses);
    }
  }
  if (Object.keys(answers).length > 0) return answers;
  const only = open.length === 1 ? open[0]! : undefined;
  if (only?.kind === 'confirmation') {
    const value = incoming.data.length === 1 ? incoming.data[0] : undefined;
    if (
      typeof value === 'boolean' ||
      (typeof value === 'object' && value !== null && typeof (value as { confirmed?: unknown }).confirmed === 'boolean')
    )
      return { [only.id]: value };
  } else if (only?.kind === 'input') {
    if (incoming.data.length === 1) return { [only.id]: incoming.data[0] };
    if (incoming.data.length === 0 && incoming.text !== '') return { [only.id]: incoming.text };
  }
  const ids = open.map((i) => `'${i.id}' (${i.kind})`).join(', ');
  throw new RequestMalformedError(
    `Task '${taskId}' waits for answers to ${ids}, and this message answers none of them. Send a data part per answer: {"interruptId": "<id>", "confirmed": true} for a confirmation (false rejects), {"interruptId": "<id>", "value": <answer>} for an input request${only ? `; for this one question the answer alone also works (${only.kind === 'confirmation' ? '{"confirmed": true}' : 'a text or data part'})` : ''}.`,
  );
}
