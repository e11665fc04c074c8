/**
 * The key under which a function call carries arguments the model sent as malformed JSON. The call
 * still reaches the agent, whose tool rejects the arguments; that error goes back to the model as
 * the call's response, so the model can call again with valid arguments.
 */
export const MALFORMED_ARGUMENTS_KEY = '_malformedArguments';

/** Parses a model's JSON arguments; malformed or non-object JSON is kept raw under {@link MALFORMED_ARGUMENTS_KEY}. */
export function parseArguments(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (isRecord(value)) return value;
  } catch {
    // Falls through: the raw text is kept so the model sees what it sent.
  }
  return { [MALFORMED_ARGUMENTS_KEY]: raw };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
