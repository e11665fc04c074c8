import { isPlainObject } from '../tools/base-tool.js';

/**
 * A working memory record with an update applied: objects are merged field by field (at any depth),
 * any other value (a string, a number, a list) replaces the old one, and `null` removes the field.
 * Neither input is changed; the result shares no objects with the update the model sent.
 */
export function mergeRecord(record: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(update)) {
    if (value === null) {
      delete merged[field];
      continue;
    }
    const current = merged[field];
    // Defined, not assigned: a field named like an Object.prototype member stays plain data.
    Object.defineProperty(merged, field, {
      value: isPlainObject(value) ? mergeRecord(isPlainObject(current) ? current : {}, value) : structuredClone(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return merged;
}
