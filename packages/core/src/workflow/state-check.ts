import type { Event } from '../events/event.js';
import { isZodSchema, prepareValidator, type Schema, type Validation } from '../utils/schema.js';
import { StateSchemaError } from './errors.js';

/**
 * The check a workflow's `stateSchema` makes of every event its nodes hand on: each key the event
 * writes must match the schema's field of that name (keys the schema does not name pass, unless it
 * forbids other keys). Synchronous, so events keep their order; throws before anything is stored.
 */
export async function prepareStateCheck(schema: Schema): Promise<(event: Event) => void> {
  const fields = new Map<string, (value: unknown) => Validation>();
  let closed = false;
  if (isZodSchema(schema)) {
    const shape = (schema as unknown as { shape?: Record<string, Schema> }).shape;
    const def = (schema as unknown as { _zod?: { def?: { catchall?: { _zod?: { def?: { type?: string } } } } } })._zod
      ?.def;
    closed = def?.catchall?._zod?.def?.type === 'never';
    for (const [key, field] of Object.entries(shape ?? {})) fields.set(key, await prepareValidator(field));
  } else {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    closed = schema.additionalProperties === false;
    for (const [key, field] of Object.entries(properties)) fields.set(key, await prepareValidator(field));
  }
  return (event) => {
    if (event.partial) return;
    const delta = event.actions.stateDelta;
    for (const key in delta) {
      const node = event.nodeInfo?.path ?? event.author;
      const check = fields.get(key);
      if (!check) {
        if (closed) throw new StateSchemaError(key, node, 'the schema names no such key');
        continue;
      }
      const result = check(delta[key]);
      if (!result.ok) throw new StateSchemaError(key, node, result.message);
    }
  };
}
