import { stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentDefinitionError, displayPath, type DefinitionLocation } from './definition-error.js';

/** Agent definition files: parsed as YAML (JSON is read as JSON). */
export const DEFINITION_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.json'];

/** Modules: imported; their default export is the agent, tool, or function. */
export const MODULE_EXTENSIONS: readonly string[] = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts']);

/** What a path in a definition points at. */
export type EntryFileKind = 'definition' | 'module';

export function entryFileKind(file: string): EntryFileKind | undefined {
  const extension = extname(file).toLowerCase();
  if (DEFINITION_EXTENSIONS.includes(extension)) return 'definition';
  if (MODULE_EXTENSIONS.includes(extension)) return 'module';
  return undefined;
}

/** True for a string that is written as a path (`./x`, `../x`, `/x`, or a known file extension). */
export function looksLikePath(value: string): boolean {
  return /^\.{1,2}[\\/]/.test(value) || value.startsWith('/') || entryFileKind(value) !== undefined;
}

/**
 * The absolute path of a file named in a definition, relative to the folder of the file that
 * names it. Throws when the extension is not supported or nothing is there (naming the path tried).
 */
export async function resolveEntryFile(
  path: string,
  fromFile: string,
  at: DefinitionLocation,
): Promise<{ file: string; kind: EntryFileKind }> {
  const file = resolve(dirname(fromFile), path);
  const kind = entryFileKind(file);
  if (kind === undefined) {
    throw new AgentDefinitionError(
      at,
      `'${path}' is not a definition or module file. Name a ${[...DEFINITION_EXTENSIONS, ...MODULE_EXTENSIONS].join(', ')} file (relative to this file's folder), or write the definition inline.`,
    );
  }
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      throw new AgentDefinitionError(at, `'${path}' cannot be read (${file}): ${(error as Error).message}.`, {
        cause: error,
      });
    throw new AgentDefinitionError(
      at,
      `'${path}' does not exist (looked for ${file}). Check the name; paths are relative to the folder of ${basename(fromFile)}.`,
    );
  }
  if (!isFile)
    throw new AgentDefinitionError(at, `'${path}' is a directory (${file}), not a file. Name the file itself.`);
  return { file, kind };
}

/**
 * The file {@link loadAgent} was given: a definition or module file, or a directory holding one of
 * `directoryFiles`. Relative paths resolve against the working directory.
 */
export async function resolveRootFile(
  path: string,
  directoryFiles: readonly string[],
): Promise<{ file: string; kind: EntryFileKind }> {
  if (typeof path !== 'string' || path === '')
    throw new AgentDefinitionError(
      { file: String(path) },
      `loadAgent needs the path of an agent file or directory; got ${describeValue(path)}.`,
    );
  const absolute = resolve(path);
  const found = await statKind(absolute);
  if (found === 'missing') {
    throw new AgentDefinitionError(
      { file: absolute },
      `no agent file or directory at '${path}' (looked for ${absolute}). Check the path.`,
    );
  }
  if (found === 'directory') {
    for (const name of directoryFiles) {
      const candidate = resolve(absolute, name);
      if ((await statKind(candidate)) === 'file') return { file: candidate, kind: 'definition' };
    }
    throw new AgentDefinitionError(
      { file: absolute },
      `the directory '${path}' has no agent definition: looked for ${directoryFiles.join(', ')}. Create one, or pass the definition file itself.`,
    );
  }
  const kind = entryFileKind(absolute);
  if (kind === undefined) {
    throw new AgentDefinitionError(
      { file: absolute },
      `'${path}' is not an agent definition. Pass a ${[...DEFINITION_EXTENSIONS, ...MODULE_EXTENSIONS].join(', ')} file, or a directory holding ${directoryFiles.join(', ')}.`,
    );
  }
  return { file: absolute, kind };
}

async function statKind(path: string): Promise<'file' | 'directory' | 'missing'> {
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

/**
 * Imports a module named by a definition with a plain `import()`, so it shares the caller's module
 * graph (and its copy of @troupe/core). TypeScript needs a loader such as tsx, which the `troupe`
 * CLI registers; without one the error says so.
 */
export async function importModule(file: string, at: DefinitionLocation): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (
      TYPESCRIPT_EXTENSIONS.has(extname(file)) &&
      (code === 'ERR_UNKNOWN_FILE_EXTENSION' ||
        code === 'ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING' ||
        // Node 22.18+ and 24 strip types by themselves, but not syntax that needs compiling (enums, namespaces).
        code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX')
    ) {
      throw new AgentDefinitionError(
        at,
        `Node cannot load the TypeScript module ${displayPath(file)} by itself. Run the agent through the troupe CLI ('troupe run'), which compiles TypeScript, or register tsx first ('node --import tsx ...' or register() from 'tsx/esm/api'), or use a .js file.`,
        { cause: error },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentDefinitionError(at, `loading module ${displayPath(file)} failed: ${reason}`, { cause: error });
  }
}

/** The module's default export, else its `rootAgent` export (ADK's convention). */
export function moduleValue(
  namespace: Record<string, unknown>,
  file: string,
  at: DefinitionLocation,
  wanted: string,
): unknown {
  if (namespace.default !== undefined) return namespace.default;
  if (namespace.rootAgent !== undefined) return namespace.rootAgent;
  const names = Object.keys(namespace);
  throw new AgentDefinitionError(
    at,
    `${displayPath(file)} has no default export (it exports ${names.length ? names.map((n) => `'${n}'`).join(', ') : 'nothing'}). Export ${wanted} as its default: 'export default ...'.`,
  );
}

/** A JavaScript identifier made from a file name: `word-count.js` → `word_count`. */
export function nameFromFile(file: string): string {
  return toIdentifier(basename(file, extname(file))) || 'agent';
}

/** `test-team-agent` → `test_team_agent`, `Basic Chat Agent` → `Basic_Chat_Agent`; identifiers stay as they are. */
export function toIdentifier(name: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return name;
  const joined = name.replace(/[^A-Za-z0-9_$]+/g, '_');
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** How a value is named in messages: "a function 'helper'", "a string", "an object". */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'function') return value.name ? `a function '${value.name}'` : 'a function';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const constructorName = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof constructorName === 'string' && constructorName !== 'Object' ? `a ${constructorName}` : 'an object';
}
