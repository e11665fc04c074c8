import type { Schema } from '@troupe/core';
import { z } from 'zod';

/** A JSON Schema object. */
export type JsonSchemaObject = Record<string, unknown>;

/**
 * An agent's schema as JSON Schema: a zod schema (of whichever zod copy the agent's module
 * imported: it has `safeParse`) converted, a JSON Schema as it is.
 */
export function jsonSchemaOf(schema: Schema): JsonSchemaObject {
  if (typeof (schema as { safeParse?: unknown }).safeParse !== 'function') return schema as JsonSchemaObject;
  const json = z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any' }) as JsonSchemaObject;
  delete json.$schema;
  return json;
}

/** A plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
