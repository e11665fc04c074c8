import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BaseAgent, loadAgent, type LoadAgentOptions } from '@troupe/core';
import { HttpError } from './http-error.js';
import { loadFailureSite } from './load-failure-site.js';

/** Imports a module file and returns its namespace. The CLI passes one that compiles TypeScript (tsx). */
export type ImportModule = (path: string) => Promise<unknown>;

/**
 * Names of the entry file looked for in each folder of `agentsDir`, in order: code first, then
 * definitions (`root_agent.yaml` is the name ADK's agent config uses).
 */
export const AGENT_ENTRY_FILES: readonly string[] = [
  'agent.ts',
  'agent.mts',
  'agent.js',
  'agent.mjs',
  'agent.yaml',
  'agent.yml',
  'agent.json',
  'root_agent.yaml',
];

const DEFINITION_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** How discovered apps are loaded. */
export interface DiscoveryOptions {
  importModule: ImportModule;
  /** Options of core's `loadAgent` for `agent.yaml`/`agent.yml`/`agent.json`/`root_agent.yaml` entries. */
  loadAgentOptions?: LoadAgentOptions;
}

/** An app found in `agentsDir`: its name and how to load its root agent. */
export interface DiscoveredApp {
  name: string;
  file: string;
  load(): Promise<BaseAgent>;
}

/** Plain `import()` of a file path; enough for JavaScript, and for TypeScript under a TS loader. */
export const defaultImportModule: ImportModule = (path) => import(pathToFileURL(path).href);

/**
 * Finds the apps of an agents directory, like `adk api_server <agents_dir>`: each folder holding
 * one of {@link AGENT_ENTRY_FILES} is an app named after the folder. Finding them runs no code:
 * folders are only listed, and an app's entry file is imported (a YAML or JSON definition loaded
 * through core's `loadAgent`) on its first use. Nothing else is ever imported — not the files
 * beside the apps (scripts, helpers), nor other files inside an app's folder unless its entry
 * imports them. The root agent of a module is its `rootAgent` export, else its default export.
 */
export async function discoverApps(agentsDir: string, options: DiscoveryOptions): Promise<DiscoveredApp[]> {
  const { importModule } = options;
  let entries;
  try {
    entries = await readdir(agentsDir, { withFileTypes: true });
  } catch (error) {
    throw new HttpError(
      500,
      'AGENTS_DIR',
      `Cannot read the agents directory '${agentsDir}': ${(error as Error).message}. Pass an existing directory as agentsDir.`,
      undefined,
      { cause: error },
    );
  }
  const apps: DiscoveredApp[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (
      !entry.isDirectory() ||
      entry.name.startsWith('.') ||
      entry.name.startsWith('_') ||
      entry.name === 'node_modules'
    )
      continue;
    const file = await findAppEntry(join(agentsDir, entry.name));
    if (!file) continue;
    const load = DEFINITION_EXTENSIONS.has(extname(file))
      ? () => loadDefinition(file, options.loadAgentOptions)
      : () => loadRootAgent(file, importModule);
    apps.push({ name: entry.name, file, load });
  }
  return apps;
}

/**
 * The entry file of an app folder: the first of {@link AGENT_ENTRY_FILES} it holds; else, when
 * its agents are YAML definitions under other names (`team.yaml` beside the `chat.yaml` it uses
 * as a skill), the one YAML definition that no other YAML file of the folder names, the root of
 * the tree (a definition has a top-level `name:`). Undefined when there is none, or several
 * (which one is the app would be a guess).
 * Files are read as text, never run.
 */
export async function findAppEntry(folder: string): Promise<string | undefined> {
  const names = await readdir(folder);
  const present = new Set(names);
  const entryFile = AGENT_ENTRY_FILES.find((name) => present.has(name));
  if (entryFile) return join(folder, entryFile);
  const yamls = names.filter((name) => /\.ya?ml$/i.test(name) && !name.startsWith('.')).sort();
  if (yamls.length === 0) return undefined;
  const texts = await Promise.all(yamls.map((name) => readFile(join(folder, name), 'utf8').catch(() => '')));
  // An agent definition names its agent at the top level; other YAML (CI, compose files) does not count.
  const roots = yamls.filter(
    (name, i) =>
      /^name:[ \t]*\S/m.test(texts[i]!) && !texts.some((text, j) => yamls[j] !== name && namesFile(text, name)),
  );
  return roots.length === 1 ? join(folder, roots[0]!) : undefined;
}

/** True when a definition's text names `file` (as a skill, sub-agent or tool reference: `chat.yaml`, `./chat.yaml`). */
function namesFile(text: string, file: string): boolean {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[\\s'"/:\\[,-])${escaped}($|[\\s'",\\]#])`, 'm').test(text);
}

async function loadRootAgent(file: string, importModule: ImportModule): Promise<BaseAgent> {
  let namespace: unknown;
  try {
    namespace = await importModule(file);
  } catch (error) {
    const site = loadFailureSite(file, error);
    throw loadError(file, `importing it failed${site ? ` at ${site}` : ''}: ${(error as Error).message}`, error);
  }
  if (!isRecord(namespace)) throw loadError(file, 'the importer returned no module namespace');
  return pickAgent(namespace, file);
}

async function loadDefinition(file: string, options: LoadAgentOptions | undefined): Promise<BaseAgent> {
  try {
    return await loadAgent(file, options);
  } catch (error) {
    // Core's AgentDefinitionError already names the file, the line and the key.
    throw new HttpError(
      500,
      'AGENT_LOAD',
      `The agent definition '${file}' could not be loaded: ${(error as Error).message}`,
      undefined,
      { cause: error },
    );
  }
}

function pickAgent(namespace: Record<string, unknown>, file: string): BaseAgent {
  const exportName = namespace.rootAgent !== undefined ? 'rootAgent' : 'default';
  const value = namespace[exportName];
  if (value instanceof BaseAgent) return value;
  if (value === undefined) {
    throw loadError(
      file,
      `it exports no agent; add \`export const rootAgent = new LlmAgent({ ... })\` (exports found: ${Object.keys(namespace).join(', ') || 'none'})`,
    );
  }
  const looksLikeAgent =
    typeof value === 'object' && value !== null && typeof (value as { runAsync?: unknown }).runAsync === 'function';
  throw loadError(
    file,
    looksLikeAgent
      ? `its '${exportName}' export is an agent from another copy of @troupe/core than the server's; make the project and the server use one copy`
      : `its '${exportName}' export is not an agent (a BaseAgent such as LlmAgent)`,
  );
}

function loadError(file: string, reason: string, cause?: unknown): HttpError {
  return new HttpError(500, 'AGENT_LOAD', `The agent in '${file}' could not be loaded: ${reason}.`, undefined, {
    cause,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
