/**
 * Keys refused in data that comes from outside (state, run inputs, tool arguments): merging an
 * object with one of them into another (`Object.assign`, a spread, a deep merge) can replace the
 * target's prototype or reach `Object.prototype` itself.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Where a forbidden key was found: the key and its path from the root (`input.a[2].__proto__`). */
export interface ForbiddenKey {
  key: string;
  path: string;
}

/**
 * The first forbidden key in `value` at any depth of its plain objects and arrays, with its path
 * starting at `root`; undefined when there is none. Other objects (Dates, class instances) are not
 * looked into. Walks without recursion, so deeply nested data cannot overflow the stack, and visits
 * each object once, so cycles end.
 */
export function findForbiddenKey(value: unknown, root: string): ForbiddenKey | undefined {
  // Runs on every append with state: primitives cost nothing, and paths are only spelled out for
  // the key that is found (each pending entry points at its parent instead).
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Step[] = [{ value, parent: undefined, key: '' }];
  const seen = new Set<object>();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const current = next.value;
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        if (typeof item === 'object' && item !== null) pending.push({ value: item, parent: next, key: i });
      }
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(current);
    if (proto !== Object.prototype && proto !== null) continue;
    const keys = Object.keys(current);
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key)) return { key, path: pathOf({ value: undefined, parent: next, key }, root) };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const item = (current as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push({ value: item, parent: next, key });
    }
  }
  return undefined;
}

/** A value still to look into, and how it was reached. */
interface Step {
  value: unknown;
  parent: Step | undefined;
  /** Its key in the parent (an index for arrays). */
  key: string | number;
}

function pathOf(step: Step, root: string): string {
  const segments: string[] = [];
  for (let s: Step | undefined = step; s?.parent !== undefined; s = s.parent)
    segments.push(typeof s.key === 'number' ? `[${s.key}]` : segment(s.key));
  return root + segments.reverse().join('');
}

/** `.name` for identifier-like keys, `["a key"]` otherwise. */
function segment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
