import { AgentDefinitionError, type DefinitionLocation } from './definition-error.js';
import { closest, inStyleOf, normalizeEntries, type NormalizedEntry } from './normalize-keys.js';
import { describeNode, toPlain, type MapNode, type SourceNode } from './parse-document.js';

/** One item of a list-valued key, with where it is (`skills[1]`). */
export interface ListItem {
  readonly node: SourceNode;
  readonly at: DefinitionLocation;
}

/**
 * Reads the keys of one definition mapping (camelCase, snake_case or kebab-case), checking each
 * value's type. Every error names the file, the line and the key as written, and the fix.
 */
export class MapReader {
  private readonly entries: Map<string, NormalizedEntry>;

  /** @param keyPrefix the path of this mapping in front of its keys: `''`, `'reflection.'`, `'skills[0].'`. */
  constructor(
    readonly node: MapNode,
    readonly keyPrefix: string,
  ) {
    this.entries = normalizeEntries(node, keyPrefix);
  }

  /** The camelCase keys present (null values count as absent). */
  keys(): string[] {
    return [...this.entries.values()].filter((e) => !isNull(e.value)).map((e) => e.key);
  }

  /**
   * Throws on the first key not in `allowed`, with a did-you-mean. `belongsTo(key)` may name where
   * such a key does belong (`'loop agents'`), for a more useful message.
   */
  checkKeys(allowed: readonly string[], what: string, belongsTo?: (key: string) => string | undefined): void {
    for (const entry of this.entries.values()) {
      if (allowed.includes(entry.key)) continue;
      const home = belongsTo?.(entry.key);
      const suggestion = home ? undefined : closest(entry.key, allowed);
      const shownAllowed = allowed.map((k) => inStyleOf(this.style(), k)).join(', ');
      const problem = home
        ? `'${entry.rawKey}' is not a key of ${what}; it belongs to ${home}. Set the right 'type', or remove the key.`
        : `unknown key '${entry.rawKey}' for ${what}.${suggestion ? ` Did you mean '${inStyleOf(entry.rawKey, suggestion)}'?` : ''} The keys of ${what} are: ${shownAllowed}.`;
      throw new AgentDefinitionError(this.entryAt(entry), problem);
    }
  }

  /** Where a key is (its line), or where the mapping is when the key is absent. */
  at(key: string): DefinitionLocation {
    const entry = this.entries.get(key);
    if (entry) return this.entryAt(entry);
    return { file: this.node.file, line: this.node.line, key: this.keyPrefix + this.shown(key) };
  }

  /** The key as the file writes it (or would, in its style, when absent). */
  shown(key: string): string {
    return this.entries.get(key)?.rawKey ?? inStyleOf(this.style(), key);
  }

  /** The raw node of a key; `null` values count as absent. */
  value(key: string): SourceNode | undefined {
    const entry = this.entries.get(key);
    return entry && !isNull(entry.value) ? entry.value : undefined;
  }

  has(key: string): boolean {
    return this.value(key) !== undefined;
  }

  /** Throws unless the key is present. */
  require(key: string, what: string, example: string): SourceNode {
    const node = this.value(key);
    if (node === undefined)
      this.fail(key, `'${this.shown(key)}' is required: ${what}. Add e.g. '${this.shown(key)}: ${example}'.`);
    return node;
  }

  string(key: string, example = 'text'): string | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'scalar' || typeof node.value !== 'string') this.wrongType(key, node, 'a string', example);
    return node.value;
  }

  /** A non-empty string without leading or trailing spaces (a name, a key, a path). */
  word(key: string, example: string): string | undefined {
    const value = this.string(key, example);
    if (value !== undefined && (value.trim() === '' || value.trim() !== value)) {
      this.fail(
        key,
        `'${this.shown(key)}' is ${JSON.stringify(value)}; it needs a value without surrounding spaces, e.g. '${this.shown(key)}: ${example}'.`,
      );
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'scalar' || typeof node.value !== 'boolean') this.wrongType(key, node, 'true or false', 'true');
    return node.value;
  }

  /** A whole number of at least `min`. */
  integer(key: string, min: number, example: number): number | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'scalar' || typeof node.value !== 'number' || !Number.isInteger(node.value) || node.value < min) {
      this.wrongType(key, node, `a whole number of at least ${min}`, String(example));
    }
    return node.value;
  }

  /** A number (temperature, topP...). */
  number(key: string, example: number): number | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'scalar' || typeof node.value !== 'number' || !Number.isFinite(node.value))
      this.wrongType(key, node, 'a number', String(example));
    return node.value;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (
      node.kind !== 'scalar' ||
      typeof node.value !== 'string' ||
      !(values as readonly string[]).includes(node.value)
    ) {
      const near = node.kind === 'scalar' && typeof node.value === 'string' ? closest(node.value, values) : undefined;
      this.fail(
        key,
        `'${this.shown(key)}' is ${describeNode(node)}; use one of ${values.map((v) => `'${v}'`).join(', ')}.${near ? ` Did you mean '${near}'?` : ''}`,
      );
    }
    return node.value as T;
  }

  /** A list; each item comes with its location (`skills[1]`). */
  list(key: string, example: string): ListItem[] | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'seq') this.wrongType(key, node, 'a list', example);
    const shown = this.keyPrefix + this.shown(key);
    return node.items.map((item, i) => ({
      node: item,
      at: { file: item.file, line: item.line, key: `${shown}[${i}]` },
    }));
  }

  /** A mapping, read by its own reader (keys under `key.`). */
  map(key: string, example: string): MapReader | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'map') this.wrongType(key, node, 'a mapping of keys', example);
    return new MapReader(node, `${this.keyPrefix}${this.shown(key)}.`);
  }

  /** A mapping taken as plain data (a JSON Schema, provider settings): its keys are not normalized. */
  plainObject(key: string, example: string): Record<string, unknown> | undefined {
    const node = this.value(key);
    if (node === undefined) return undefined;
    if (node.kind !== 'map') this.wrongType(key, node, 'a mapping', example);
    return toPlain(node) as Record<string, unknown>;
  }

  /** Throws an {@link AgentDefinitionError} at the key. */
  fail(key: string, problem: string, cause?: unknown): never {
    throw new AgentDefinitionError(this.at(key), problem, cause === undefined ? undefined : { cause });
  }

  private wrongType(key: string, node: SourceNode, expected: string, example: string): never {
    this.fail(
      key,
      `'${this.shown(key)}' must be ${expected}; got ${describeNode(node)}. Write e.g. '${this.shown(key)}: ${example}'.`,
    );
  }

  private entryAt(entry: NormalizedEntry): DefinitionLocation {
    return { file: this.node.file, line: entry.line, key: this.keyPrefix + entry.rawKey };
  }

  /** A key of this mapping with more than one word, showing the file's style; snake_case by default. */
  private style(): string {
    for (const entry of this.entries.values())
      if (entry.rawKey !== entry.key || /[A-Z]/.test(entry.rawKey)) return entry.rawKey;
    return '_';
  }
}

function isNull(node: SourceNode): boolean {
  return node.kind === 'scalar' && (node.value === null || node.value === undefined);
}
