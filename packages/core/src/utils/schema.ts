import type { ZodType } from 'zod';
import { ConfigurationError } from '../errors.js';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** A zod schema (v4, or anything with the same `safeParse`) or a JSON Schema object. */
export type Schema = ZodType | JsonSchema;

/** The value type a schema describes: inferred for zod, `Record<string, unknown>` for JSON Schema. */
export type Infer<S> = S extends ZodType<infer T> ? T : Record<string, unknown>;

/** The outcome of validating a value. */
export type Validation = { ok: true; value: unknown } | { ok: false; message: string };

export function isZodSchema(schema: unknown): schema is ZodType {
  return typeof schema === 'object' && schema !== null && typeof (schema as ZodType).safeParse === 'function';
}

/** Checks a value against a zod or JSON Schema. Resolves to a message naming each failing field. */
export async function validate(schema: Schema, value: unknown): Promise<Validation> {
  if (isZodSchema(schema)) {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    const message = result.error.issues
      .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, message };
  }
  const check = await compileJsonSchema(schema);
  if (check(value)) return { ok: true, value };
  const message = (check.errors ?? [])
    .map(
      (error) =>
        `${error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(root)'}: ${describeAjvError(error)}`,
    )
    .join('; ');
  return { ok: false, message };
}

/** The JSON Schema form of a schema, for tool declarations and response formats. */
export async function toJsonSchema(schema: Schema): Promise<JsonSchema> {
  if (!isZodSchema(schema)) return schema;
  const cached = jsonSchemaCache.get(schema);
  if (cached) return cached;
  const { z } = await import('zod');
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { unrepresentable: 'any' });
  } catch (error) {
    throw new ConfigurationError(
      `This zod schema cannot be turned into JSON Schema for the model (${(error as Error).message}). Use zod v4 types that JSON Schema can express, or pass a JSON Schema object.`,
    );
  }
  delete json.$schema;
  jsonSchemaCache.set(schema, json);
  return json;
}

const jsonSchemaCache = new WeakMap<object, JsonSchema>();

interface AjvError {
  instancePath: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

interface CompiledCheck {
  (value: unknown): boolean;
  errors?: AjvError[] | null;
}

function describeAjvError(error: AjvError): string {
  const message = error.message ?? 'is invalid';
  if (error.keyword === 'enum' && Array.isArray(error.params?.allowedValues)) {
    return `${message} (${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
  }
  if (error.keyword === 'additionalProperties' && error.params?.additionalProperty) {
    return `${message} ('${String(error.params.additionalProperty)}')`;
  }
  return message;
}

const compiled = new WeakMap<object, CompiledCheck>();
let ajvPromise: Promise<{ compile(schema: object): CompiledCheck }> | undefined;

// ajv is loaded on first use so that importing @troupe/core stays cheap.
async function compileJsonSchema(schema: JsonSchema): Promise<CompiledCheck> {
  const hit = compiled.get(schema);
  if (hit) return hit;
  ajvPromise ??= import('ajv').then((mod) => {
    const Ajv = (mod.default as unknown as { default?: unknown }).default ?? mod.default;
    return new (Ajv as new (options: object) => { compile(schema: object): CompiledCheck })({
      allErrors: true,
      strict: false,
    });
  });
  const ajv = await ajvPromise;
  let check: CompiledCheck;
  try {
    check = ajv.compile(schema);
  } catch (error) {
    throw new ConfigurationError(
      `Invalid JSON Schema ${JSON.stringify(schema).slice(0, 200)}: ${(error as Error).message}. Fix the schema.`,
    );
  }
  compiled.set(schema, check);
  return check;
}

/**
 * A synchronous check of values against `schema`, prepared once (a JSON Schema is compiled here):
 * for checks that must not wait, such as a workflow's state schema on every event it passes on.
 */
export async function prepareValidator(schema: Schema): Promise<(value: unknown) => Validation> {
  if (isZodSchema(schema)) {
    return (value) => {
      const result = schema.safeParse(value);
      if (result.success) return { ok: true, value: result.data };
      return {
        ok: false,
        message: result.error.issues
          .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
          .join('; '),
      };
    };
  }
  const check = await compileJsonSchema(schema);
  return (value) => {
    if (check(value)) return { ok: true, value };
    return {
      ok: false,
      message: (check.errors ?? [])
        .map(
          (error) =>
            `${error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(root)'}: ${describeAjvError(error)}`,
        )
        .join('; '),
    };
  };
}
