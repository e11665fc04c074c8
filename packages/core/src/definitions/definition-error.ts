import { isAbsolute, relative } from 'node:path';
import { TroupeError } from '../errors.js';

/** Where a problem in an agent definition is: the file, the line (1-based) and the key path. */
export interface DefinitionLocation {
  /** The absolute path of the definition file. */
  file: string;
  /** The 1-based line, when known. */
  line?: number | undefined;
  /** The key as written in the file, with its parents: `reflection.max_iterations`, `skills[1]`. */
  key?: string | undefined;
}

/**
 * An agent definition (YAML or JSON file, or a module it names) cannot be loaded: invalid YAML, a
 * value of the wrong type, an unknown key or agent type, a missing file, a cycle of files. The
 * message starts with `file:line` and names the key, the value and the fix.
 *
 * @example
 * try {
 *   await loadAgent('agents/team.yaml');
 * } catch (error) {
 *   if (error instanceof AgentDefinitionError) console.error(error.file, error.line, error.key);
 * }
 */
export class AgentDefinitionError extends TroupeError {
  /** The absolute path of the file with the problem. */
  readonly file: string;
  /** The 1-based line of the problem, when known. */
  readonly line: number | undefined;
  /** The key path as written in the file (`max_iterations`, `reflection.reviewer`, `skills[0]`), when the problem is a key. */
  readonly key: string | undefined;

  constructor(location: DefinitionLocation, problem: string, options?: { cause?: unknown }) {
    super('AGENT_DEFINITION', `${whereText(location)}: ${withKey(location.key, problem)}`, options);
    this.file = location.file;
    this.line = location.line;
    this.key = location.key;
  }
}

/** `file:line`, with the file relative to the working directory when it is inside it. */
export function whereText(location: DefinitionLocation): string {
  const shown = displayPath(location.file);
  return location.line === undefined ? shown : `${shown}:${location.line}`;
}

/** Puts the key path in front of a problem that does not already name it. */
function withKey(key: string | undefined, problem: string): string {
  return key === undefined || problem.includes(`'${key}'`) ? problem : `${key}: ${problem}`;
}

/** A path as shown in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
