import { describeSchemaShape, type InterruptInfo } from '@troupe/core';
import { askerOf, isNodeRequest } from './workflow-nodes.js';

/** Tool arguments longer than this are cut in a question. */
const MAX_ARGS_LENGTH = 200;

/**
 * The question for a confirmation, answered on the same line: `Allow pay({"amount":120})? Pay 120 EUR? [y/N] `.
 * The hint core writes for `requireConfirmation` only repeats the tool and its arguments, so it is left out.
 */
export function confirmationQuestion(interrupt: InterruptInfo): string {
  const review = codeToReview(interrupt.payload);
  if (review) return codeQuestion(interrupt, review);
  const args = cut(JSON.stringify(interrupt.args ?? {}), MAX_ARGS_LENGTH);
  const hint =
    interrupt.hint && !interrupt.hint.startsWith(`Allow tool '${interrupt.toolName}' to run with `)
      ? ` ${interrupt.hint}`
      : '';
  return `Allow ${interrupt.toolName}(${args})?${hint} [y/N] `;
}

/** Lines of code shown in a question; a longer program is cut with a line saying how much is left. */
const MAX_CODE_LINES = 40;

/** The code a confirmation asks to run (`execute_code`, a skill script): its payload's `{ language, code, args? }`. */
function codeToReview(payload: unknown): { language: string; code: string; args: unknown[] } | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { language, code, args } = payload as Record<string, unknown>;
  if (typeof language !== 'string' || typeof code !== 'string') return undefined;
  return { language, code, args: Array.isArray(args) ? args : [] };
}

/**
 * A confirmation to run code shows the code itself, numbered and indented, so the person approves
 * what will run, not a JSON string of it:
 * `Run this python code?` / `   1 │ print(6 * 7)` / `Allow execute_code? [y/N] `.
 */
function codeQuestion(interrupt: InterruptInfo, review: { language: string; code: string; args: unknown[] }): string {
  const lines = review.code.replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, MAX_CODE_LINES).map((line, i) => `${String(i + 1).padStart(4)} │ ${line}`);
  if (lines.length > MAX_CODE_LINES) shown.push(`     │ … ${lines.length - MAX_CODE_LINES} more lines`);
  const args = review.args.length > 0 ? `\nwith arguments ${cut(JSON.stringify(review.args), MAX_ARGS_LENGTH)}` : '';
  const hint = interrupt.hint ?? `Run this ${review.language} code?`;
  return `${hint}\n${shown.join('\n')}${args}\nAllow ${interrupt.toolName}? [y/N] `;
}

/**
 * The lines shown before an input request's answer is read: who asks (the tool, or the workflow
 * node that returned a `RequestInput`, named through `askers`: interrupt id → node), its message
 * and, when it has one, the shape of the answer.
 */
export function inputRequestText(interrupt: InterruptInfo, askers?: ReadonlyMap<string, string>): string {
  const asker = askerOf(interrupt, askers);
  const message = interrupt.message ?? `${asker} needs an answer.`;
  const schema = interrupt.responseSchema ? describeSchema(interrupt.responseSchema) : undefined;
  // A workflow's request takes text as it is; only an object answer is held to its schema.
  const shape =
    schema === undefined ? '' : `\n(answer with ${isNodeRequest(interrupt) ? 'text, or ' : ''}JSON: ${schema})`;
  return `${asker} asks: ${message}${shape}\n`;
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
 * The answer to `interrupt` typed on `line`. A workflow node's request takes text as it is (`42`
 * stays the text "42"), and a JSON object when it has a `responseSchema` to hold it to; other
 * requests take {@link parseInputAnswer}.
 */
export function parseRequestAnswer(interrupt: InterruptInfo, line: string): unknown {
  if (!isNodeRequest(interrupt)) return parseInputAnswer(line);
  const text = line.trim();
  if (!interrupt.responseSchema) return text;
  const value = parseInputAnswer(text);
  return typeof value === 'object' && value !== null ? value : text;
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
