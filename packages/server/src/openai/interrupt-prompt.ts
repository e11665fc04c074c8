import { describeSchemaShape, type InterruptInfo } from '@troupe/core';
import { isInputRequest } from '../adk-input.js';

/**
 * The assistant's words for a turn that paused for a person: each open question, and how to
 * answer it in the next message. A chat client shows it as the assistant's reply, so the user
 * answers it as they would any question (see text-answer.ts for what the answers may be).
 */
export function interruptPrompt(interrupts: readonly InterruptInfo[]): string {
  const questions = interrupts.map(question);
  if (interrupts.length === 1) {
    const how = howToAnswer(interrupts[0]!);
    return how === '' ? questions[0]! : `${questions[0]!} ${how}`;
  }
  return `${questions.join('\n')}\nThese ${interrupts.length} questions are answered together, by interrupt id, with POST .../sessions/{id}/resume (ids in the X-Troupe-Interrupt-Id header).`;
}

function question(interrupt: InterruptInfo): string {
  if (interrupt.kind === 'confirmation')
    return interrupt.hint ?? `Allow tool '${interrupt.toolName}' to run with ${JSON.stringify(interrupt.args)}?`;
  return interrupt.message ?? `Tool '${interrupt.toolName}' needs an answer.`;
}

function howToAnswer(interrupt: InterruptInfo): string {
  if (interrupt.kind === 'confirmation') return 'Answer yes or no.';
  const schema = interrupt.responseSchema;
  if (!schema || schema.type === 'string') return '';
  // A workflow's request takes a message's text as it is (SPEC §17.1); an object, held to its
  // schema, is given by interrupt id on the resume route. A tool's request takes the JSON value.
  if (isInputRequest(interrupt))
    return `(Answer with text. To answer with ${describeSchemaShape(schema)}, POST it to .../sessions/{id}/resume under the interrupt id in the X-Troupe-Interrupt-Id header.)`;
  return `(Answer with JSON: ${describeSchemaShape(schema)}.)`;
}
