import { BaseAgent } from '../agents/base-agent.js';
import { BaseTool } from '../tools/base-tool.js';
import type { Schema } from '../utils/schema.js';
import { isBaseNode, type BaseNode, type BaseNodeConfig } from '../workflow/base-node.js';
import { FunctionNode, type FunctionNodeHandler } from '../workflow/function-node.js';
import { JoinNode } from '../workflow/join-node.js';
import { node as toNode } from '../workflow/node.js';
import type { RetryConfig } from '../workflow/retry-config.js';
import {
  instancePlan,
  isAgentClass,
  type AgentPlan,
  type BuildAgent,
  type Compiler,
  type Scope,
} from './agent-plan.js';
import { readSchema } from './build-common.js';
import { AgentDefinitionError, displayPath, type DefinitionLocation } from './definition-error.js';
import { describeValue, importModule, nameFromFile, resolveEntryFile } from './load-module.js';
import { closest } from './normalize-keys.js';
import { describeNode, type SourceNode } from './parse-document.js';
import { MapReader } from './read-values.js';

/** The node options of a node entry (ADK's `BaseNodeConfig`, `timeout` in milliseconds), in camelCase. */
export const NODE_OPTION_KEYS = [
  'description',
  'retryConfig',
  'timeout',
  'inputSchema',
  'outputSchema',
  'parallelWorker',
  'maxParallelWorkers',
  'rerunOnResume',
  'waitForOutput',
] as const;

const RETRY_KEYS = ['maxAttempts', 'initialDelayMs', 'maxDelayMs', 'backoffFactor', 'jitter', 'errors'] as const;

const NODE_FORMS =
  "a path (an agent file './writer.yaml', or a module './nodes.js' or './nodes.ts#classify' whose export is a function (ctx, input) => output, an agent, a tool or a node), an inline agent definition, { agent: <path or inline definition>, ...node options }, { module: ./nodes.js, export: classify, ...node options }, or { type: join }";

/** A workflow node that has been read and checked but not built. */
export interface NodePlan {
  /** The node's name in the workflow (what edges name it by). */
  readonly name: string;
  /** Where the node is defined. */
  readonly at: DefinitionLocation;
  /** The agent it runs, for an agent node: placed in the workflow's tree. */
  readonly agent?: AgentPlan;
  create(build: BuildAgent): BaseNode;
}

/** One entry of `nodes:`: its value, where it is, and the name the map form gives it. */
export interface NodeEntry {
  readonly node: SourceNode;
  readonly at: DefinitionLocation;
  /** The key of a `nodes:` mapping; undefined in a list, where the entry names itself. */
  readonly key?: string;
}

/**
 * Reads one entry of a workflow's `nodes:` (see {@link NODE_FORMS}): a path, an inline agent, or
 * a mapping of a kind (`agent:`, `module:`, `type: join`) with node options in any key case.
 */
export async function compileNode(compiler: Compiler, entry: NodeEntry, scope: Scope): Promise<NodePlan> {
  const { node, at } = entry;
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    const named = await fromPath(compiler, node.value, entry, scope);
    return named.plan(entry.key, {}, at);
  }
  if (node.kind !== 'map')
    throw new AgentDefinitionError(at, `a workflow node must be ${NODE_FORMS}; got ${describeNode(node)}.`);
  const r = new MapReader(node, `${at.key}.`);
  const listed = entry.key === undefined;
  const nameKeys = listed ? ['name'] : [];
  if (r.has('module')) {
    r.checkKeys(['module', 'export', ...nameKeys, ...NODE_OPTION_KEYS], 'a module node');
    const path = r.word('module', './nodes.js')!;
    const exportName = r.word('export', 'classify');
    if (exportName !== undefined && path.includes('#'))
      r.fail('export', `'${r.shown('module')}' already names an export ('${path}'); drop '${r.shown('export')}'.`);
    const named = await fromPath(compiler, exportName ? `${path}#${exportName}` : path, entry, scope, r.at('module'));
    return named.plan(nodeName(r, entry), await nodeOptions(compiler, r), r.at('module'));
  }
  if (r.has('agent')) {
    r.checkKeys(['agent', ...nameKeys, ...NODE_OPTION_KEYS], 'an agent node');
    const agentNode = r.value('agent')!;
    // An inline agent without `name:` is named after its node: its key, or its `name:` in a list.
    const name = nodeName(r, entry);
    const agent =
      agentNode.kind === 'map'
        ? await compiler.definition(new MapReader(agentNode, `${r.keyPrefix}${r.shown('agent')}.`), scope, name)
        : await compiler.agentEntry({ node: agentNode, at: r.at('agent') }, scope);
    return agentNodePlan(name ?? agent.name, agent, await nodeOptions(compiler, r), r.at('agent'));
  }
  if (r.string('type') === 'join') {
    r.checkKeys(['type', ...nameKeys, ...NODE_OPTION_KEYS], 'a join node');
    const name =
      nodeName(r, entry) ??
      r.fail('name', `a join node in a list needs '${r.shown('name')}': the name edges call it by, e.g. 'merge'.`);
    const options = await nodeOptions(compiler, r);
    return { name, at: listed ? r.at('name') : at, create: () => new JoinNode({ ...options, name }) };
  }
  // Any other mapping is an agent written inline, as in `sub_agents` (its keys are the agent's).
  const agent = await compiler.definition(r, scope, entry.key);
  return agentNodePlan(entry.key ?? agent.name, agent, {}, at);
}

/** Node options given in an entry: checked and converted to the node config's names. */
type NodeOptions = Partial<Omit<BaseNodeConfig, 'name'>>;

/** A path entry, read: a definition file's agent, or a module's export; named once the entry's name is known. */
interface NamedThing {
  plan(name: string | undefined, options: NodeOptions, at: DefinitionLocation): NodePlan;
}

/**
 * `./writer.yaml` (an agent), `./nodes.js` (the default export) or `./nodes.ts#classify` (a named
 * export) — the export being a function (a function node), an agent, a tool or a node.
 */
async function fromPath(
  compiler: Compiler,
  written: string,
  entry: NodeEntry,
  scope: Scope,
  at: DefinitionLocation = entry.at,
): Promise<NamedThing> {
  const hash = written.lastIndexOf('#');
  const path = hash < 0 ? written : written.slice(0, hash);
  const exportName = hash < 0 ? undefined : written.slice(hash + 1);
  const { file, kind } = await resolveEntryFile(path, scope.file, at);
  if (kind === 'definition') {
    if (exportName !== undefined)
      throw new AgentDefinitionError(
        at,
        `'${written}' names an export of a definition file; '#${exportName}' only picks an export of a .js/.ts module. Drop it, or name a module.`,
      );
    const agent = await compiler.file(file, at, scope);
    return { plan: (name, options, where) => agentNodePlan(name ?? agent.name, agent, options, where) };
  }
  const namespace = await importModule(file, at);
  const value = exportOf(namespace, file, exportName, at);
  const shown =
    exportName === undefined ? `the default export of ${displayPath(file)}` : `'${exportName}' of ${displayPath(file)}`;
  if (value instanceof BaseAgent) {
    const agent = instancePlan(value, at);
    return { plan: (name, options, where) => agentNodePlan(name ?? value.name, agent, options, where) };
  }
  if (isBaseNode(value) || value instanceof BaseTool) {
    const thing = value;
    return {
      plan: (name, options, where) => ({
        name: name ?? checkedName(thing.name, where, shown),
        at: where,
        create: () => toNode(thing, { ...options, ...(name !== undefined ? { name } : {}) }),
      }),
    };
  }
  if (
    typeof value === 'function' &&
    !isAgentClass(value) &&
    !/^class[\s{]/.test(Function.prototype.toString.call(value))
  ) {
    const fn = value as FunctionNodeHandler;
    return {
      plan: (name, options, where) => {
        const nodeName = name ?? checkedName(exportName ?? (fn.name || nameFromFile(file)), where, shown);
        return { name: nodeName, at: where, create: () => new FunctionNode(nodeName, fn, options) };
      },
    };
  }
  throw new AgentDefinitionError(
    at,
    `${shown} is ${describeValue(value)}; a workflow node's module exports a function (ctx, input) => output, an agent, a tool or a node (node(...), new FunctionNode(...)).`,
  );
}

/** The export a node names: `#name`, else the default export (or a `rootAgent` export). */
function exportOf(
  namespace: Record<string, unknown>,
  file: string,
  exportName: string | undefined,
  at: DefinitionLocation,
): unknown {
  const names = Object.keys(namespace);
  const listed = names.length ? names.map((n) => `'${n}'`).join(', ') : 'nothing';
  if (exportName === undefined) {
    if (namespace.default !== undefined) return namespace.default;
    if (namespace.rootAgent !== undefined) return namespace.rootAgent;
    throw new AgentDefinitionError(
      at,
      `${displayPath(file)} has no default export (it exports ${listed}). Name the export: '${displayPath(file)}#name', or 'export: name'.`,
    );
  }
  if (exportName === '' || !Object.hasOwn(namespace, exportName) || namespace[exportName] === undefined) {
    const near = closest(exportName, names);
    throw new AgentDefinitionError(
      at,
      `${displayPath(file)} has no export '${exportName}'${near ? `; did you mean '${near}'?` : '.'} It exports ${listed}.`,
    );
  }
  return namespace[exportName];
}

function agentNodePlan(name: string, agent: AgentPlan, options: NodeOptions, at: DefinitionLocation): NodePlan {
  return { name, at, agent, create: (build) => toNode(build(agent), { ...options, name }) };
}

/** The entry's name: the key of a `nodes:` mapping, else its `name:` (a list item). */
function nodeName(r: MapReader, entry: NodeEntry): string | undefined {
  return entry.key ?? r.word('name', 'classify');
}

function checkedName(name: string, at: DefinitionLocation, what: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && name !== 'START') return name;
  throw new AgentDefinitionError(
    at,
    `${what} is named ${JSON.stringify(name)}, which cannot name a workflow node (an identifier other than START). Give the node a name: write it under 'nodes:' as a mapping key, or add 'name:'.`,
  );
}

/** The node options of an entry, checked here so a wrong value is reported at its own line. */
async function nodeOptions(compiler: Compiler, r: MapReader): Promise<NodeOptions> {
  const options: NodeOptions = {};
  const description = r.string('description', 'Classifies the request.');
  if (description !== undefined) options.description = description;
  const retry = readRetry(r);
  if (retry) options.retryConfig = retry;
  const timeout = r.number('timeout', 30000);
  if (timeout !== undefined) {
    if (timeout <= 0)
      r.fail(
        'timeout',
        `'${r.shown('timeout')}' is ${timeout}; it is the milliseconds one try may take, above 0 (e.g. 30000).`,
      );
    options.timeout = timeout;
  }
  const inputSchema: Schema | undefined = await readSchema(compiler, r, 'inputSchema');
  if (inputSchema) options.inputSchema = inputSchema;
  const outputSchema: Schema | undefined = await readSchema(compiler, r, 'outputSchema');
  if (outputSchema) options.outputSchema = outputSchema;
  for (const key of ['parallelWorker', 'rerunOnResume', 'waitForOutput'] as const) {
    const value = r.boolean(key);
    if (value !== undefined) options[key] = value;
  }
  const max = r.integer('maxParallelWorkers', 1, 4);
  if (max !== undefined) {
    if (options.parallelWorker !== true)
      r.fail(
        'maxParallelWorkers',
        `'${r.shown('maxParallelWorkers')}' needs '${r.shown('parallelWorker')}: true' (it caps how many items of a list input run at once). Add it, or drop '${r.shown('maxParallelWorkers')}'.`,
      );
    options.maxParallelWorkers = max;
  }
  return options;
}

/** `retry_config: { max_attempts, initial_delay_ms, max_delay_ms, backoff_factor, jitter, errors: [names] }`. */
function readRetry(r: MapReader): RetryConfig | undefined {
  const retry = r.map('retryConfig', '{ max_attempts: 3 }');
  if (!retry) return undefined;
  retry.checkKeys(RETRY_KEYS, `'${r.shown('retryConfig')}'`);
  const config: RetryConfig = {};
  const maxAttempts = retry.integer('maxAttempts', 1, 3);
  if (maxAttempts !== undefined) config.maxAttempts = maxAttempts;
  for (const key of ['initialDelayMs', 'maxDelayMs', 'backoffFactor', 'jitter'] as const) {
    const value = retry.number(key, key === 'backoffFactor' ? 2 : 1000);
    if (value === undefined) continue;
    const min = key === 'backoffFactor' ? 1 : 0;
    if (value < min) retry.fail(key, `'${retry.shown(key)}' is ${value}; use a number of at least ${min}.`);
    config[key] = value;
  }
  const errors = retry.list('errors', "[RateLimitError, 'ECONNRESET']");
  if (errors) {
    config.errors = errors.map(({ node, at }) => {
      if (node.kind === 'scalar' && typeof node.value === 'string' && node.value !== '') return node.value;
      throw new AgentDefinitionError(
        at,
        `a retry error is the name or code of an error to retry (e.g. RateLimitError); got ${describeNode(node)}.`,
      );
    });
  }
  return config;
}
