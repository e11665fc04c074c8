import { type BaseAgent, type Content, takesTextMessage } from '@troupe/core';
import { CliUsageError } from './errors.js';
import { describeSchema } from './interrupt-prompt.js';

/** What a turn runs with: a text message, or a structured input (`ctx.input`) given as JSON. */
export type TurnMessage =
  | { text: string; /** The message with files (`--attach`), when there are any. */ content?: Content }
  | { input: Record<string, unknown>; json: string };

/** Where a one-shot message came from, as the CLI user typed it: a flag, or the message after the agent. */
export type MessageSource = '--input' | '--input-json' | 'the message';

/**
 * The message of a one-shot run. `--input-json` is always parsed as a JSON object; the text of
 * `--input` (or the message after the agent) too when the agent takes a structured input (it has
 * an `inputSchema`), unless its schema has a `request` field and the text is not a JSON object:
 * then it stays text, which the runner turns into `{ request: text }`. Otherwise it is a text
 * message. Throws {@link CliUsageError} naming the flag, the value and the fix when the JSON does
 * not parse or is not an object. The schema itself is checked by the runner (see
 * {@link inputRefusedError}).
 */
export function oneShotMessage(source: MessageSource, value: string, agent: BaseAgent): TurnMessage {
  if (source !== '--input-json') {
    if (agent.inputSchema === undefined) return { text: value };
    if (!/^\s*[{[]/.test(value) && takesTextMessage(agent.inputSchema)) return { text: value };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new CliUsageError(
      `${shown(source, value)} is not JSON (${(error as Error).message}). ${why(source, agent)}Give a JSON object${example(agent)}.`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliUsageError(
      `${shown(source, value)} is ${Array.isArray(parsed) ? 'a JSON array' : `a JSON ${parsed === null ? 'null' : typeof parsed}`}, not an object. ${why(source, agent)}Give a JSON object${example(agent)}.`,
    );
  return { input: parsed as Record<string, unknown>, json: value };
}

/**
 * The usage error for a structured input the runner refused (its `InputValidationError`): names
 * the flag, the value, what did not match and the shape the agent takes.
 */
export function inputRefusedError(
  source: MessageSource,
  value: string,
  agent: BaseAgent,
  reason: string,
): CliUsageError {
  // The runner's own advice is for code calling it; the flag's is below.
  const what = reason.replace(/ Pass an input with these fields\.$/, '');
  return new CliUsageError(`${shown(source, value)} was refused: ${what} Give a JSON object${example(agent)}.`);
}

function shown(source: MessageSource, value: string): string {
  const quoted = `'${value.length > 120 ? `${value.slice(0, 119)}…` : value}'`;
  return source === 'the message' ? `The message ${quoted}` : `${source} ${quoted}`;
}

function why(source: MessageSource, agent: BaseAgent): string {
  return source === '--input-json' ? '' : `Agent '${agent.name}' takes a structured input (it has an inputSchema). `;
}

/** `of this shape: { sections?: {...}[] }` for a JSON Schema input; nothing for a zod schema, whose shape is not plain JSON. */
function example(agent: BaseAgent): string {
  const schema = agent.inputSchema as unknown;
  if (schema === undefined || typeof (schema as { safeParse?: unknown }).safeParse === 'function') return '';
  return ` of the shape agent '${agent.name}' takes: ${describeSchema(schema)}`;
}
