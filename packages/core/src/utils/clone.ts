/**
 * Copies JSON-like data (plain objects, arrays, primitives) much faster than structuredClone;
 * anything else (Date, typed arrays, Map) falls back to structuredClone.
 */
export function cloneData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneData(value[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = cloneData((value as Record<string, unknown>)[key]);
  return out as T;
}
