import type { Content } from '../events/content.js';
import { contentText } from '../events/content.js';
import { InputValidationError } from '../errors.js';
import { toJsonSchema, validate, type Schema } from '../utils/schema.js';
import { describeSchemaShape, takesTextMessage } from '../utils/schema-shape.js';

/** The text that stands for a structured input: its `request` when that is the only field, else JSON. */
export function inputToText(input: Record<string, unknown>, inputKey?: string): string {
  if (inputKey !== undefined) {
    const value = input[inputKey];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  }
  const keys = Object.keys(input);
  if (keys.length === 1 && keys[0] === 'request' && typeof input.request === 'string') return input.request;
  return JSON.stringify(input);
}

/** The structured input a plain user message stands for. */
export function inputFromContent(content: Content | undefined): Record<string, unknown> {
  return { request: contentText(content) };
}

const TEXT_FIX =
  "Run it with an input object of that shape instead (the `input` of runner.run and of POST /run), or give the inputSchema a 'request' string field to take text.";

/**
 * The structured input of a turn started with a text message, for the agent that runs it:
 * `{ request: text }`. An agent that runs on its input (`runsOnInput`: a team, a function agent)
 * and has an `inputSchema` takes one only when its schema names a `request` field and
 * `{ request: text }` matches it; otherwise InputValidationError names the shape it takes: run on
 * `{ request }` alone, it would find none of its fields and finish with nothing (a team iterating
 * over `sections` would return `{ sections: [] }`). Other agents read the message itself.
 */
export async function messageInput(
  agent: { name: string; inputSchema?: Schema | undefined; runsOnInput: boolean },
  content: Content,
): Promise<Record<string, unknown>> {
  const input = inputFromContent(content);
  const schema = agent.inputSchema;
  if (schema === undefined || !agent.runsOnInput) return input;
  if (!takesTextMessage(schema)) {
    const shape = describeSchemaShape(await toJsonSchema(schema));
    throw new InputValidationError(
      `Agent '${agent.name}' takes a structured input, ${shape}, and was given a text message, which stands for { request: "<the text>" }: its inputSchema has no 'request' field, so it would run without its input. ${TEXT_FIX}`,
    );
  }
  const checked = await validate(schema, input);
  if (!checked.ok) {
    const shape = describeSchemaShape(await toJsonSchema(schema));
    throw new InputValidationError(
      `Agent '${agent.name}' was given a text message, which stands for { request: "<the text>" }, but its inputSchema, ${shape}, wants more: ${checked.message}. ${TEXT_FIX}`,
    );
  }
  return checked.value as Record<string, unknown>;
}
