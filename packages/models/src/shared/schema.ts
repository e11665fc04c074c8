import { isRecord } from './tool-arguments.js';

type JsonSchema = Record<string, unknown>;

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

/** A copy of a JSON Schema with `fn` applied to every subschema, innermost first, then to the schema itself. */
function mapSchema(schema: unknown, fn: (schema: JsonSchema) => JsonSchema): unknown {
  if (!isRecord(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapSchema(sub, fn)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => mapSchema(sub, fn));
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = Array.isArray(value) ? value.map((sub) => mapSchema(sub, fn)) : mapSchema(value, fn);
    } else {
      out[key] = value;
    }
  }
  return fn(out);
}

function isObjectSchema(schema: JsonSchema): boolean {
  return (
    schema.type === 'object' ||
    (Array.isArray(schema.type) && schema.type.includes('object')) ||
    isRecord(schema.properties)
  );
}

/** The system-instruction text that asks for JSON when a provider's native JSON mode cannot be used. */
export function schemaInstruction(schema: JsonSchema): string {
  return `Give your final answer as a single JSON value, with no other text and no code fences, that matches this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** Joins system-instruction pieces, skipping empty ones. */
export function joinInstructions(...pieces: (string | undefined)[]): string | undefined {
  const text = pieces.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join('\n\n');
  return text === '' ? undefined : text;
}

/**
 * Whether a schema meets OpenAI's strict structured-output rules: every object is closed
 * (`additionalProperties: false`) and requires all its properties.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  let compatible = true;
  mapSchema(schema, (sub) => {
    if (isObjectSchema(sub)) {
      const keys = Object.keys(isRecord(sub.properties) ? sub.properties : {});
      const required = Array.isArray(sub.required) ? sub.required : [];
      if (sub.additionalProperties !== false || !keys.every((k) => required.includes(k))) compatible = false;
    }
    return sub;
  });
  return compatible;
}

/** A copy of the schema where every object that does not say otherwise is closed (`additionalProperties: false`). */
export function closeObjects(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (sub) =>
    isObjectSchema(sub) && sub.additionalProperties === undefined ? { ...sub, additionalProperties: false } : sub,
  ) as JsonSchema;
}

/** A name for the response format (OpenAI wants `^[a-zA-Z0-9_-]{1,64}$`), from the schema's title. */
export function schemaName(schema: JsonSchema): string {
  const title = typeof schema.title === 'string' ? schema.title.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64) : '';
  return title || 'response';
}
