import { AgentDefinitionError } from './definition-error.js';
import type { MapNode, SourceNode } from './parse-document.js';

/** A key of a definition mapping, normalized to camelCase, with how it was written. */
export interface NormalizedEntry {
  /** camelCase: `iterateOn` for `iterate_on`, `iterate-on` and `iterateOn`. */
  readonly key: string;
  /** As written in the file. */
  readonly rawKey: string;
  /** 1-based line of the key. */
  readonly line: number;
  readonly value: SourceNode;
}

/** `iterate_on`, `iterate-on` and `iterateOn` all become `iterateOn`. */
export function toCamelCase(key: string): string {
  return key.replace(/[-_]+([A-Za-z0-9])/g, (_match, next: string) => next.toUpperCase());
}

/** Writes a camelCase key the way `example` is written (snake_case, kebab-case or camelCase). */
export function inStyleOf(example: string, camelKey: string): string {
  const words = (separator: string) => camelKey.replace(/[A-Z]/g, (c) => `${separator}${c.toLowerCase()}`);
  if (example.includes('_')) return words('_');
  if (example.includes('-')) return words('-');
  return camelKey;
}

/**
 * The mapping's entries by camelCase key. The same key written twice in different cases
 * (`iterate_on` and `iterateOn`) is an error naming both lines.
 */
export function normalizeEntries(node: MapNode, keyPrefix: string): Map<string, NormalizedEntry> {
  const out = new Map<string, NormalizedEntry>();
  for (const entry of node.entries) {
    const key = toCamelCase(entry.key);
    const earlier = out.get(key);
    if (earlier) {
      throw new AgentDefinitionError(
        { file: node.file, line: entry.line, key: keyPrefix + entry.key },
        `'${entry.key}' repeats '${earlier.rawKey}' (line ${earlier.line}): camelCase, snake_case and kebab-case name the same key. Keep one of them.`,
      );
    }
    out.set(key, { key, rawKey: entry.key, line: entry.line, value: entry.value });
  }
  return out;
}

/** The candidate closest to `word` when it is close enough to be a likely typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const target = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(target, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(target.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}
