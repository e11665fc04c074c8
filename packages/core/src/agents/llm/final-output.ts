import type { Part } from '../../events/content.js';
import { validate, type Schema } from '../../utils/schema.js';

/** Parses a final answer as JSON (optionally fenced as ```json) and checks it against the schema. */
export async function parseStructured(
  schema: Schema,
  text: string,
): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const json = stripFences(text);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return { ok: false, message: `the answer is not valid JSON (${(error as Error).message})` };
  }
  return validate(schema, value);
}

/** The output of a turn ended by a tool without text: the single result, or all responses. */
export function toolTurnOutput(parts: readonly Part[]): unknown {
  const responses = parts.map((p) => ('functionResponse' in p ? p.functionResponse.response : undefined));
  const only = responses.length === 1 ? responses[0] : undefined;
  if (only && Object.keys(only).length === 1 && 'result' in only) return only.result;
  return responses.length === 1 ? only : responses;
}

function stripFences(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed);
  return fenced ? fenced[1]! : trimmed;
}
