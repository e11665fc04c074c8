import { describeSchemaShape, type InterruptInfo } from '@troupe/core';

/** Tool arguments longer than this are cut in a question. */
const MAX_ARGS_LENGTH = 200;

/**
 * The question for a confirmation, answered on the same line: `Allow pay({"amount":120})? Pay 120 EUR? [y/N] `.
 * The hint core writes for `requireConfirmation` only repeats the tool and its arguments, so it is left out.
 */
export function confirmationQuestion(interrupt: InterruptInfo): string {
  const args = cut(JSON.stringify(interrupt.args ?? {}), MAX_ARGS_LENGTH);
  const hint =
    interrupt.hint && !interrupt.hint.startsWith(`Allow tool '${interrupt.toolName}' to run with `)
      ? ` ${interrupt.hint}`
      : '';
  return `Allow ${interrupt.toolName}(${args})?${hint} [y/N] `;
}

/** The lines shown before an input request's answer is read: its message and, when it has one, the shape of the answer. */
export function inputRequestText(interrupt: InterruptInfo): string {
  const message = interrupt.message ?? `${interrupt.toolName} needs an answer.`;
  const shape = interrupt.responseSchema ? `\n(answer with JSON: ${describeSchema(interrupt.responseSchema)})` : '';
  return `${interrupt.toolName} asks: ${message}${shape}\n`;
}

/** The prompt an input request's answer is typed after. */
export const INPUT_PROMPT = 'answer> ';

/** A confirmation answer: `y` or `yes` (any case) approves; anything else, an empty line included, rejects. */
export function parseConfirmation(line: string): boolean {
  return /^(y|yes)$/i.test(line.trim());
}

/** An input request's answer: the JSON value when the line parses as JSON, else the line as a string. */
export function parseInputAnswer(line: string): unknown {
  const text = line.trim();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A short, TypeScript-like summary of a JSON Schema: `{ date: string, nights?: integer }`,
 * `"economy" | "business"`, `string[]`: core's `describeSchemaShape`, which the runner's messages use too.
 */
export const describeSchema = describeSchemaShape;

/** Which of `asked` a rejected answer was about: the input requests the core's error names, else all of them. */
export function rejectedRequests(asked: readonly InterruptInfo[], errorMessage: string): InterruptInfo[] {
  const inputs = asked.filter((i) => i.kind === 'input');
  const named = inputs.filter((i) => errorMessage.includes(`'${i.id}'`));
  return named.length > 0 ? named : inputs;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
