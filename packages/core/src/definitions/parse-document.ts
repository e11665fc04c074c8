import type * as Yaml from 'yaml';
import type { Document, LineCounter } from 'yaml';
import { AgentDefinitionError } from './definition-error.js';

/** The `yaml` package, loaded on first use so that importing @troupe/core stays cheap. */
export type YamlModule = typeof Yaml;

/** A parsed value with the file and line it came from. */
export type SourceNode = MapNode | SeqNode | ScalarNode;

interface NodeBase {
  readonly file: string;
  /** 1-based line of the value. */
  readonly line: number;
}

/** A mapping; entries keep their order and the line of each key. */
export interface MapNode extends NodeBase {
  readonly kind: 'map';
  readonly entries: readonly SourceEntry[];
}

/** One `key: value` of a mapping. */
export interface SourceEntry {
  readonly key: string;
  /** 1-based line of the key. */
  readonly line: number;
  readonly value: SourceNode;
}

export interface SeqNode extends NodeBase {
  readonly kind: 'seq';
  readonly items: readonly SourceNode[];
}

export interface ScalarNode extends NodeBase {
  readonly kind: 'scalar';
  readonly value: unknown;
}

/**
 * Parses the text of a `.yaml`/`.yml`/`.json` definition into nodes that know their lines.
 * JSON goes through `JSON.parse` first, for JSON's own syntax errors, then through the YAML parser
 * (JSON is YAML) for the positions. Throws {@link AgentDefinitionError} with the line of a syntax error.
 */
export function parseDocument(yaml: YamlModule, text: string, file: string, format: 'yaml' | 'json'): MapNode {
  if (format === 'json') checkJson(text, file);
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const syntaxError = doc.errors[0];
  if (syntaxError) {
    const line = syntaxError.linePos?.[0].line;
    throw new AgentDefinitionError(
      { file, line },
      `invalid ${format === 'json' ? 'JSON' : 'YAML'}: ${firstLine(syntaxError.message)}. Fix the syntax at this line (indentation, a missing ':' or closing bracket, a duplicate key).`,
    );
  }
  if (doc.contents === null) {
    throw new AgentDefinitionError(
      { file, line: 1 },
      `the file is empty. Write an agent definition, e.g. 'name: Assistant' and 'instruction: Answer the user.'`,
    );
  }
  const root = new Converter(yaml, doc, lineCounter, file).convert(doc.contents);
  if (root.kind !== 'map') {
    throw new AgentDefinitionError(
      { file, line: root.line },
      `the file holds ${describeNode(root)}, not an agent definition. Write a mapping of keys such as 'name:', 'type:' and 'instruction:'.`,
    );
  }
  return root;
}

/** The plain JavaScript value of a node (for JSON Schemas and pass-through settings). */
export function toPlain(node: SourceNode): unknown {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map':
      return plainRecord(node.entries);
  }
}

/** Mapping entries as a plain object of their plain values. */
export function plainRecord(entries: Iterable<{ key: string; value: SourceNode }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of entries) {
    // A data key named like a prototype member is kept as data, never as a prototype.
    Object.defineProperty(out, entry.key, {
      value: toPlain(entry.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** "a string", "a list", "a mapping", "null": how a value is named in messages. */
export function describeNode(node: SourceNode): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'seq') return 'a list';
  const value = node.value;
  if (value === null || value === undefined) return 'nothing (null)';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return `a ${typeof value}`;
}

/**
 * Values an alias may bring into a document in all, counted as they are expanded, so the work of
 * expanding is bounded by it. Aliases inside aliases multiply (nine levels of nine aliases, a
 * "billion laughs" under 600 bytes, would be 9^9 values), and aliases side by side add up (one
 * anchor, then a megabyte of `- *a`). The `yaml` package's own `maxAliasCount` bounds only
 * `toJS()`, which is not used here (it keeps no lines): there it caps, per anchor, the references
 * times the aliases inside the anchored value, at 100 by default.
 */
export const MAX_ALIAS_VALUES = 10_000;
/** How deeply mappings and lists may nest (deeper input would exhaust the stack later on). */
export const MAX_NESTING = 100;

class Converter {
  private readonly active = new Set<unknown>();
  /** The anchored node each alias refers to, indexed on the first alias (see {@link anchorTargets}). */
  private targets: Map<unknown, unknown> | undefined;
  /** Values created so far by expanding aliases. */
  private aliasValues = 0;
  /** The outermost alias being expanded, for the message when the expansion is too large. */
  private expanding: { source: string; line: number } | undefined;

  constructor(
    private readonly yaml: YamlModule,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    private readonly file: string,
  ) {}

  convert(node: unknown, lineOverride?: number): SourceNode {
    const { yaml, file } = this;
    const line = lineOverride ?? this.lineOf(node);
    if (yaml.isAlias(node)) {
      this.targets ??= anchorTargets(yaml, this.doc);
      const target = this.targets.get(node);
      if (target === undefined)
        throw new AgentDefinitionError(
          { file, line },
          `the alias *${node.source} names no anchor. Define &${node.source} before using it.`,
        );
      if (this.active.has(target))
        throw new AgentDefinitionError(
          { file, line },
          `the alias *${node.source} refers to a value that contains it. Remove the recursive alias.`,
        );
      const outermost = this.expanding === undefined;
      if (outermost) this.expanding = { source: node.source, line };
      try {
        return this.convert(target, line);
      } finally {
        if (outermost) this.expanding = undefined;
      }
    }
    if (this.expanding && ++this.aliasValues > MAX_ALIAS_VALUES) {
      const { source, line: aliasLine } = this.expanding;
      throw new AgentDefinitionError(
        { file, line: aliasLine },
        `the alias *${source} brings the document over ${MAX_ALIAS_VALUES} values copied from anchors: aliases inside aliases multiply (an alias bomb). Write the repeated values out, or nest fewer aliases.`,
      );
    }
    if (yaml.isMap(node)) {
      return this.within(node, () => ({
        kind: 'map',
        file,
        line,
        entries: node.items.map((pair) => {
          const keyLine = pair.key === null ? line : this.lineOf(pair.key);
          const key = yaml.isScalar(pair.key) ? String(pair.key.value) : pair.key === null ? '' : String(pair.key);
          return {
            key,
            line: keyLine,
            value:
              pair.value === null ? { kind: 'scalar', file, line: keyLine, value: null } : this.convert(pair.value),
          };
        }),
      }));
    }
    if (yaml.isSeq(node)) {
      return this.within(node, () => ({
        kind: 'seq',
        file,
        line,
        items: node.items.map((item) => this.convert(item)),
      }));
    }
    if (yaml.isScalar(node)) return { kind: 'scalar', file, line, value: node.value };
    return { kind: 'scalar', file, line, value: null };
  }

  private within<T>(node: unknown, make: () => T): T {
    if (this.active.size >= MAX_NESTING) {
      throw new AgentDefinitionError(
        { file: this.file, line: this.lineOf(node) },
        `values nest more than ${MAX_NESTING} levels deep here. Flatten this part of the definition.`,
      );
    }
    this.active.add(node);
    try {
      return make();
    } finally {
      this.active.delete(node);
    }
  }

  private lineOf(node: unknown): number {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? this.lines.linePos(range[0]).line : 1;
  }
}

/**
 * The node each alias of the document refers to: the last node with its anchor before it, in
 * document order, as YAML and the `yaml` package's `Alias.resolve` define it. Built in one pass:
 * `resolve` walks the whole document for every alias, so a wide document of aliases cost its
 * size times their number (minutes for a megabyte) before any limit could count a value.
 */
function anchorTargets(yaml: YamlModule, doc: Document.Parsed): Map<unknown, unknown> {
  const latest = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  yaml.visit(doc, {
    Node: (_key, node) => {
      if (yaml.isAlias(node)) targets.set(node, latest.get(node.source));
      else if (node.anchor) latest.set(node.anchor, node);
    },
  });
  return targets;
}

function checkJson(text: string, file: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AgentDefinitionError(
      { file, line: jsonErrorLine(text, message) },
      `invalid JSON: ${message}. Fix the syntax at this line (a missing comma or quote, a trailing comma).`,
    );
  }
}

/** The line of a JSON.parse error: Node reports a character position (or, newer, the line itself). */
function jsonErrorLine(text: string, message: string): number | undefined {
  const line = /\(line (\d+) column \d+\)/.exec(message);
  if (line) return Number(line[1]);
  const position = /at position (\d+)/.exec(message);
  if (position) return text.slice(0, Number(position[1])).split('\n').length;
  if (/Unexpected end of JSON input/.test(message)) return text.split('\n').length;
  return undefined;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+/, '').replace(/[.:]\s*$/, '');
}
