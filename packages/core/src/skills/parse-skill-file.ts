import { basename, dirname } from 'node:path';
import type * as Yaml from 'yaml';
import { displayPath } from '../definitions/definition-error.js';
import { closest } from '../definitions/normalize-keys.js';
import { ConfigurationError } from '../errors.js';
import type { AgentSkill } from './agent-skill.js';

/** A skill with the line of its `name:` key, for the message when another skill has the same name. */
export interface ParsedSkill {
  readonly skill: AgentSkill;
  readonly nameLine: number;
}

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;

interface Field {
  readonly line: number;
  readonly value: unknown;
}

/**
 * Reads a `SKILL.md`: the YAML frontmatter between `---` lines, checked against the Agent Skills
 * format (other keys, such as vendors' extensions, are ignored), and the body (the instructions). Throws a {@link ConfigurationError} that starts with
 * `file:line` (the offending key's line, or 1 when a key is missing).
 */
export function parseSkillFile(yaml: typeof Yaml, text: string, file: string): ParsedSkill {
  const fail = (line: number, problem: string): never => {
    throw new ConfigurationError(`${displayPath(file)}:${line}: ${problem}`);
  };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    fail(
      1,
      `SKILL.md must start with YAML frontmatter between '---' lines, e.g. '---', 'name: my-skill', 'description: What it does and when to use it.', '---', then the instructions.`,
    );
  }
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  if (end < 0)
    fail(1, `the frontmatter opened by '---' on line 1 is never closed. Add a line '---' after its last key.`);

  const fields = readFields(yaml, lines.slice(1, end).join('\n'), fail);
  const folder = basename(dirname(file));
  const name = requireString(fields, 'name', fail, `Add 'name: ${folder}' (the skill folder's name).`);
  const nameLine = fields.get('name')!.line;
  if (name.length > MAX_NAME || !NAME.test(name)) {
    fail(
      nameLine,
      `'name' is ${JSON.stringify(name)}: a skill name is 1-${MAX_NAME} lowercase letters, digits and hyphens, with no hyphen at the start or end and no '--' (e.g. ${JSON.stringify(suggestName(name))}). Rename the skill and its folder.`,
    );
  }
  if (name !== folder) {
    fail(
      nameLine,
      `'name' is '${name}' but the skill's folder is named '${folder}'. A skill's name must equal its folder's name: rename one of them.`,
    );
  }
  const description = requireString(
    fields,
    'description',
    fail,
    `Add 'description: <what the skill does and when to use it>'; the model chooses skills by it.`,
  );
  checkLength(fields, 'description', description, MAX_DESCRIPTION, fail);
  const compatibility = optionalString(fields, 'compatibility', fail);
  if (compatibility !== undefined) checkLength(fields, 'compatibility', compatibility, MAX_COMPATIBILITY, fail);

  const skill: AgentSkill = {
    name,
    description: description.trim(),
    license: optionalString(fields, 'license', fail),
    compatibility,
    metadata: readMetadata(fields, fail),
    allowedTools: readAllowedTools(fields, fail),
    dir: dirname(file),
    file,
    instructions: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
  return { skill, nameLine };
}

type Fail = (line: number, problem: string) => never;

/** The frontmatter's keys with their file lines (the YAML starts on the file's line 2) and plain values. */
function readFields(yaml: typeof Yaml, source: string, fail: Fail): Map<string, Field> {
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: true });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line + 1;
  const error = doc.errors[0];
  if (error) {
    const message = (error.message.split('\n')[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, '');
    fail(
      (error.linePos?.[0].line ?? 0) + 1,
      `the frontmatter is not valid YAML: ${message}. Fix the syntax (indentation, a missing ':', a duplicate key; quote a value that contains ': ').`,
    );
  }
  const fields = new Map<string, Field>();
  if (doc.contents === null) return fields;
  if (!yaml.isMap(doc.contents)) {
    fail(2, `the frontmatter must be a mapping of keys such as 'name:' and 'description:'.`);
  }
  for (const pair of doc.contents.items) {
    const key = yaml.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const line = yaml.isNode(pair.key) && pair.key.range ? lineOf(pair.key.range[0]) : 2;
    const value = yaml.isNode(pair.value) ? (pair.value.toJS(doc, { maxAliasCount: 100 }) as unknown) : pair.value;
    fields.set(key, { line, value });
  }
  return fields;
}

function requireString(fields: Map<string, Field>, key: string, fail: Fail, fix: string): string {
  const field = fields.get(key);
  if (field === undefined) {
    const typo = [...fields.keys()].find((written) => closest(written, [key]) === key);
    const hint = typo ? ` (the key '${typo}' on line ${fields.get(typo)!.line} looks like a misspelling of it)` : '';
    return fail(1, `the frontmatter has no '${key}'${hint}. ${fix}`);
  }
  if (typeof field.value !== 'string' || field.value.trim() === '') {
    return fail(field.line, `'${key}' must be a non-empty string; got ${describe(field.value)}. ${fix}`);
  }
  return field.value;
}

function optionalString(fields: Map<string, Field>, key: string, fail: Fail): string | undefined {
  const field = fields.get(key);
  if (field === undefined || field.value === null) return undefined;
  if (typeof field.value !== 'string') fail(field.line, `'${key}' must be a string; got ${describe(field.value)}.`);
  return field.value;
}

function checkLength(fields: Map<string, Field>, key: string, value: string, max: number, fail: Fail): void {
  if (value.length > max) {
    fail(
      fields.get(key)!.line,
      `'${key}' is ${value.length} characters long; the Agent Skills format allows at most ${max}. Shorten it (put details in the body).`,
    );
  }
}

/** `metadata`: string keys to string values; numbers and booleans are kept as their text (`version: 1.0`). */
function readMetadata(fields: Map<string, Field>, fail: Fail): Record<string, string> | undefined {
  const field = fields.get('metadata');
  if (field === undefined || field.value === null) return undefined;
  const value = field.value;
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Map) {
    return fail(
      field.line,
      `'metadata' must be a mapping of keys to strings (e.g. 'author: me'); got ${describe(value)}.`,
    );
  }
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry !== 'string' && typeof entry !== 'number' && typeof entry !== 'boolean') {
      fail(field.line, `'metadata.${key}' must be a string; got ${describe(entry)}. Metadata values are plain text.`);
    }
    Object.defineProperty(out, key, { value: String(entry), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `allowed-tools`: a space-separated string (the format's form) or a list of strings. */
function readAllowedTools(fields: Map<string, Field>, fail: Fail): string[] | undefined {
  const field = fields.get('allowed-tools');
  if (field === undefined || field.value === null) return undefined;
  const value = field.value;
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return fail(
    field.line,
    `'allowed-tools' must be a space-separated string or a list of strings; got ${describe(value)}.`,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

/** A valid name close to an invalid one, for the message. */
function suggestName(name: string): string {
  const kebab = name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME)
    .replace(/-+$/, '');
  return kebab || 'my-skill';
}
