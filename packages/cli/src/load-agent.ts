import { stat } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import { AgentDefinitionError, BaseAgent, type BaseLlm, loadAgent, TroupeError } from '@troupe/core';
import { AGENT_ENTRY_FILES, findAppEntry } from '@troupe/server';
import { AgentLoadError } from './errors.js';
import { enableTypeScript, importModule, JAVASCRIPT_EXTENSIONS, TYPESCRIPT_EXTENSIONS } from './import-module.js';

/** The file names looked for, in order, when the agent path is a directory: the entries of an app folder, as `troupe api`/`web` find them. */
export const AGENT_FILE_NAMES: readonly string[] = AGENT_ENTRY_FILES;

/** File extensions of YAML/JSON agent definitions, loaded with core's `loadAgent`. */
export const DEFINITION_EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

/** An agent loaded from a module file or a YAML/JSON definition. */
export interface LoadedAgent {
  /** The root of the agent tree. */
  agent: BaseAgent;
  /** The absolute path of the module or definition file. */
  file: string;
  /** The export the agent came from; `'definition'` for a YAML/JSON file. */
  exportName: 'rootAgent' | 'default' | 'definition';
  /** The app name for sessions: the folder name for `agent.*` files and directories, else the file stem. */
  appName: string;
}

/** Options of {@link loadAgentModule}. */
export interface LoadAgentOptions {
  /** Relative paths resolve against this directory. @default process.cwd() */
  cwd?: string;
  /**
   * For a YAML/JSON definition: the model of its LlmAgents that name none (given to `loadAgent`).
   * Module agents are built by their own code; the Runner's default model covers them.
   */
  model?: string | BaseLlm;
}

/**
 * Loads the root agent of a module: the `rootAgent` named export, else the default export; or of a
 * YAML/JSON agent definition, through core's `loadAgent`. The path may be a `.ts`/`.mts`/`.cts`
 * file (compiled by tsx), a `.js`/`.mjs`/`.cjs` file, a `.yaml`/`.yml`/`.json` definition, or a
 * directory holding one of {@link AGENT_FILE_NAMES}. Throws {@link AgentLoadError} naming the file
 * and the fix when nothing is there, the module exports no agent, or the definition is invalid.
 *
 * @example
 * const { agent, appName } = await loadAgentModule('agents/weather');
 * const team = await loadAgentModule('agents/team.yaml', { model: 'gemini-2.5-flash' });
 */
export async function loadAgentModule(path: string, options: LoadAgentOptions = {}): Promise<LoadedAgent> {
  const cwd = options.cwd ?? process.cwd();
  const file = await resolveAgentFile(path, cwd);
  if (isAgentDefinition(file)) return loadDefinition(file, options.model);
  let namespace: Record<string, unknown>;
  try {
    namespace = await importModule(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentLoadError('import-failed', `Loading agent module '${display(file, cwd)}' failed: ${reason}`, {
      cause: error,
    });
  }
  const { agent, exportName } = pickAgent(namespace, display(file, cwd));
  return { agent, file, exportName, appName: appNameFor(file) };
}

/** True for a YAML/JSON agent definition file (as opposed to a module). */
export function isAgentDefinition(file: string): boolean {
  return DEFINITION_EXTENSIONS.has(extname(file).toLowerCase());
}

/**
 * Loads a YAML/JSON definition with core's `loadAgent`. The `.ts` modules it names are compiled by
 * tsx, registered for the whole process first so they share the CLI's copy of @troupe/core.
 */
async function loadDefinition(file: string, model: string | BaseLlm | undefined): Promise<LoadedAgent> {
  await enableTypeScript();
  let agent: BaseAgent;
  try {
    agent = await loadAgent(file, model === undefined ? {} : { model });
  } catch (error) {
    if (!(error instanceof AgentDefinitionError)) throw error;
    // A module that threw while loading is the user's code failing (exit 1, with its stack); anything else is a definition to fix (exit 2).
    const moduleFailed = error.cause instanceof Error && !(error.cause instanceof TroupeError);
    throw new AgentLoadError(
      moduleFailed ? 'import-failed' : 'invalid-definition',
      error.message + typelessHint(error),
      {
        cause: moduleFailed ? error.cause : error,
      },
    );
  }
  return { agent, file, exportName: 'definition', appName: appNameFor(file) };
}

/**
 * What to do about a `.js` module written with import/export in a folder whose package.json does
 * not say `"type": "module"` (or that has none): Node alone detects it as ESM, but with the tsx
 * hooks the CLI registers for TypeScript, Node 20 loads it as CommonJS and fails ("Cannot require()
 * ES Module … in a cycle").
 */
function typelessHint(error: AgentDefinitionError): string {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  if (code !== 'ERR_REQUIRE_CYCLE_MODULE' && code !== 'ERR_REQUIRE_ESM') return '';
  return ` A .js module written with import/export needs a package.json saying "type": "module" in its folder or above it: add one ({ "type": "module" }), or name the file .mjs.`;
}

/**
 * Turns the path given on the command line into the file to load: the file itself, or the first
 * of {@link AGENT_FILE_NAMES} in a directory.
 */
export async function resolveAgentFile(path: string, cwd: string = process.cwd()): Promise<string> {
  const absolute = resolve(cwd, path);
  const kind = await kindOf(absolute);
  if (kind === 'missing') {
    throw new AgentLoadError(
      'not-found',
      `No agent file or directory at '${path}' (looked for ${absolute}). Check the path, or pass a directory that contains ${AGENT_FILE_NAMES[0]}.`,
    );
  }
  if (kind === 'directory') {
    // The app folder's entry, as `troupe api`/`web` find it: an agent.* file, or the root of its YAML definitions.
    const entry = await findAppEntry(absolute);
    if (entry !== undefined && (await kindOf(entry)) === 'file') return entry;
    throw new AgentLoadError(
      'not-found',
      `Directory '${path}' has no agent module or definition: looked for ${AGENT_FILE_NAMES.join(', ')}, or one YAML definition that no other one there names (the root of a tree). Create one (a module that exports 'rootAgent', or an agent.yaml), or pass the agent file itself.`,
    );
  }
  const extension = extname(absolute);
  if (
    !TYPESCRIPT_EXTENSIONS.has(extension) &&
    !JAVASCRIPT_EXTENSIONS.has(extension) &&
    !DEFINITION_EXTENSIONS.has(extension)
  ) {
    const supported = [...TYPESCRIPT_EXTENSIONS, ...JAVASCRIPT_EXTENSIONS].join(', ');
    throw new AgentLoadError(
      'unsupported-file',
      `'${path}' is not a module or agent definition file (${extension || 'no extension'}). Pass a ${supported} file that exports 'rootAgent', a ${[...DEFINITION_EXTENSIONS].join(', ')} agent definition, or its directory.`,
    );
  }
  return absolute;
}

/** The app name sessions are stored under: the folder of an `agent.*` or `root_agent.yaml` file, otherwise the file stem. */
export function appNameFor(file: string): string {
  const stem = basename(file, extname(file));
  return stem === 'agent' || stem === 'root_agent' ? basename(dirname(file)) || stem : stem;
}

function pickAgent(
  namespace: Record<string, unknown>,
  file: string,
): { agent: BaseAgent; exportName: 'rootAgent' | 'default' } {
  const exportName =
    namespace.rootAgent !== undefined ? 'rootAgent' : namespace.default !== undefined ? 'default' : undefined;
  if (exportName === undefined) {
    throw new AgentLoadError(
      'bad-export',
      `'${file}' exports no agent: it needs a 'rootAgent' export or a default export, and it exports ${listExports(namespace)}. Add e.g. \`export const rootAgent = new LlmAgent({ name: 'Assistant', instruction: '...' })\`.`,
    );
  }
  const value = namespace[exportName];
  if (value instanceof BaseAgent) return { agent: value, exportName };
  const shown = exportName === 'rootAgent' ? `export 'rootAgent'` : 'the default export';
  if (looksLikeAgent(value)) {
    throw new AgentLoadError(
      'bad-export',
      `${shown} of '${file}' is an agent from another copy of @troupe/core than the one troupe runs with. Make the project and the CLI use one copy (install @troupe/cli in the project and run its troupe).`,
    );
  }
  const hint =
    typeof value === 'function' ? ' To run a plain function, wrap it: new FunctionAgent({ name, run }).' : '';
  throw new AgentLoadError(
    'bad-export',
    `${shown} of '${file}' is ${describe(value)}, not an agent (a BaseAgent such as LlmAgent or SequentialAgent).${hint}`,
  );
}

function looksLikeAgent(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { runAsync?: unknown }).runAsync === 'function'
  );
}

function listExports(namespace: Record<string, unknown>): string {
  const names = Object.keys(namespace);
  if (names.length === 0) return 'nothing';
  return names.map((name) => `'${name}' (${describe(namespace[name])})`).join(', ');
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'function') return value.name ? `a function '${value.name}'` : 'a function';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const constructorName = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof constructorName === 'string' && constructorName !== 'Object' ? `a ${constructorName}` : 'an object';
}

async function kindOf(path: string): Promise<'file' | 'directory' | 'missing'> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

function display(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}
