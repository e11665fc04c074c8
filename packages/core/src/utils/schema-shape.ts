import { isZodSchema, type Schema } from './schema.js';

/**
 * A short, TypeScript-like summary of a JSON Schema, for messages: `{ date: string, nights?: integer }`,
 * `"economy" | "business"`, `string[]`. Nested objects are summarised two levels deep.
 *
 * @example
 * describeSchemaShape({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
 * // '{ city: string }'
 */
export function describeSchemaShape(schema: unknown, depth = 0): string {
  if (typeof schema !== 'object' || schema === null) return 'any';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in s) return JSON.stringify(s.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (Array.isArray(options)) return options.map((o) => describeSchemaShape(o, depth)).join(' | ');
  }
  const type = Array.isArray(s.type) ? s.type.join(' | ') : s.type;
  if (type === 'array') return `${describeSchemaShape(s.items, depth)}[]`;
  const properties = s.properties;
  if ((type === 'object' || type === undefined) && typeof properties === 'object' && properties !== null) {
    if (depth >= 2) return 'object';
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    const fields = Object.entries(properties).map(
      ([name, sub]) => `${name}${required.has(name) ? '' : '?'}: ${describeSchemaShape(sub, depth + 1)}`,
    );
    return `{ ${fields.join(', ')} }`;
  }
  return typeof type === 'string' ? type : 'any';
}

/**
 * Whether an agent with this `inputSchema` takes a plain text message: the runner makes
 * `{ request: text }` of one, so the schema must name a `request` field (a zod object's shape, or a
 * JSON Schema's properties). Otherwise the agent would run without any of the fields it expects.
 */
export function takesTextMessage(schema: Schema): boolean {
  const shape = isZodSchema(schema) ? (schema as { shape?: unknown }).shape : undefined;
  if (typeof shape === 'object' && shape !== null) return 'request' in shape;
  const properties = isZodSchema(schema) ? undefined : schema.properties;
  return typeof properties === 'object' && properties !== null && 'request' in properties;
}
