import { isRecord } from '../shared/tool-arguments.js';

/** One step of a JSON path: an object member or an array index. */
export type PathStep = string | number;

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\' };

/**
 * Parses a JSON path naming one place in a value (RFC 9535 singular queries): `$.title`,
 * `$.items[0].name`, `$['odd key']`. Returns undefined for anything else (wildcards, slices,
 * filters, malformed text), which names no single place to write.
 */
export function parseJsonPath(path: string): PathStep[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const steps: PathStep[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '.') {
      const name = /^[^.[\]\s*]+/.exec(path.slice(i + 1))?.[0];
      if (name === undefined) return undefined;
      steps.push(name);
      i += 1 + name.length;
    } else if (path[i] === '[') {
      const quote = path[i + 1];
      if (quote === "'" || quote === '"') {
        const member = readQuoted(path, i + 2, quote);
        if (!member || path[member.end] !== ']') return undefined;
        steps.push(member.value);
        i = member.end + 1;
      } else {
        const index = /^(0|[1-9]\d*)\]/.exec(path.slice(i + 1));
        if (!index) return undefined;
        steps.push(Number(index[1]));
        i += 1 + index[0].length;
      }
    } else {
      return undefined;
    }
  }
  return steps;
}

/** A quoted member name from `start` to its closing quote, with JSON-style escapes. */
function readQuoted(path: string, start: number, quote: string): { value: string; end: number } | undefined {
  let value = '';
  for (let i = start; i < path.length; i++) {
    const char = path[i]!;
    if (char === quote) return { value, end: i + 1 };
    if (char !== '\\') {
      value += char;
      continue;
    }
    const next = path[i + 1];
    if (next === undefined) return undefined;
    if (next === "'" || next === '"') {
      value += next;
      i += 1;
    } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(path.slice(i + 2, i + 6))) {
      value += String.fromCharCode(Number.parseInt(path.slice(i + 2, i + 6), 16));
      i += 5;
    } else if (ESCAPES[next] !== undefined) {
      value += ESCAPES[next];
      i += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** The value at `steps` in `root`, if there is one. */
export function valueAt(root: unknown, steps: readonly PathStep[]): unknown {
  let current: unknown = root;
  for (const step of steps) {
    if (Array.isArray(current) && typeof step === 'number') current = current[step];
    else if (isRecord(current) && Object.hasOwn(current, String(step))) current = current[String(step)];
    else return undefined;
  }
  return current;
}

/**
 * Writes `value` at `steps` in `root`, creating the objects and arrays on the way (an array
 * where the next step is an index). The steps come from the model, so members are defined as
 * own properties: a `__proto__` step stays data and never reaches a prototype.
 */
export function setAt(root: Record<string, unknown>, steps: readonly PathStep[], value: unknown): void {
  let container: Record<string, unknown> | unknown[] = root;
  steps.forEach((step, position) => {
    const next = steps[position + 1];
    if (next === undefined) {
      put(container, step, value);
      return;
    }
    const existing = valueAt(container, [step]);
    // An index also fits an object (as a member name); a name never fits an array.
    const fits = isRecord(existing) || (typeof next === 'number' && Array.isArray(existing));
    const child = fits ? (existing as Record<string, unknown> | unknown[]) : typeof next === 'number' ? [] : {};
    if (!fits) put(container, step, child);
    container = child;
  });
}

/** Defines `key` on a record as an own, plain data property. */
export function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function put(container: Record<string, unknown> | unknown[], step: PathStep, value: unknown): void {
  if (Array.isArray(container)) container[Number(step)] = value;
  else defineMember(container, String(step), value);
}
