import { dirname } from 'node:path';
import { AgentTool } from '../tools/agent-tool.js';
import { BaseTool } from '../tools/base-tool.js';
import { BaseToolset } from '../tools/base-toolset.js';
import { exitLoop } from '../tools/exit-loop.js';
import { loadArtifactsTool } from '../tools/load-artifacts-tool.js';
import { loadMemoryTool } from '../tools/load-memory-tool.js';
import { preloadMemoryTool } from '../tools/preload-memory-tool.js';
import type { AgentPlan, Compiler, Scope, ToolPlan } from './agent-plan.js';
import { AgentDefinitionError, whereText, type DefinitionLocation } from './definition-error.js';
import { importModule, looksLikePath, moduleValue, resolveEntryFile } from './load-module.js';
import { toolPlanFromModule } from './module-agents.js';
import { closest, normalizeEntries, toCamelCase } from './normalize-keys.js';
import { describeNode, plainRecord, toPlain, type SourceNode } from './parse-document.js';
import { MapReader, type ListItem } from './read-values.js';
import { registeredToolEntryKinds, toolEntryFactory, toolEntryHint } from './tool-entries.js';

/** Built-in tools that a definition names by their name instead of a path. */
const BUILT_IN_TOOLS = {
  exit_loop: exitLoop,
  load_artifacts: loadArtifactsTool,
  load_memory: loadMemoryTool,
  preload_memory: preloadMemoryTool,
} as const;

const TOOL_FORMS = `a path to a .js/.ts module (its default export is a tool, an agent or a function), a definition file (.yaml/.json, called as an AgentTool), ${Object.keys(
  BUILT_IN_TOOLS,
)
  .map((name) => `'${name}'`)
  .join(
    ', ',
  )}, { load_memory: { mode: vector, limit: 5 } } (or preload_memory), { agent: <path or inline definition>, skip_summarization: true|false }, { skills: <folder or list of folders> }, or { <kind>: ... } for a registered entry kind such as { mcp: { command: ..., args: [...] } }`;

/** The keys of an agent tool entry; any other single key names a registered entry kind. */
const AGENT_ENTRY_KEYS = ['agent', 'skipSummarization'];

/**
 * The tools of an LlmAgent. Agents called as tools (AgentTool) are roots of their own trees, so they
 * inherit no model from the caller.
 */
export async function compileTools(compiler: Compiler, items: readonly ListItem[], scope: Scope): Promise<ToolPlan[]> {
  const toolScope: Scope = { ...scope, inheritsModel: false };
  const plans: ToolPlan[] = [];
  for (const item of items) {
    const plan = await compileTool(compiler, item, toolScope);
    const twin = plan.name === undefined ? undefined : plans.find((p) => p.name === plan.name);
    if (twin) {
      throw new AgentDefinitionError(
        item.at,
        `this tool is named '${plan.name}', like the tool at ${whereText(twin.at)}. An agent's tools need unique names; rename one (a function tool is named after its file).`,
      );
    }
    if (plan.name === 'transfer_to_agent')
      throw new AgentDefinitionError(
        item.at,
        `the tool name 'transfer_to_agent' is reserved for transfers between agents. Rename the tool.`,
      );
    plans.push(plan);
  }
  return plans;
}

async function compileTool(compiler: Compiler, item: ListItem, scope: Scope): Promise<ToolPlan> {
  const { node, at } = item;
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    const value = node.value;
    if (Object.hasOwn(BUILT_IN_TOOLS, value)) {
      const tool = BUILT_IN_TOOLS[value as keyof typeof BUILT_IN_TOOLS];
      return { at, name: tool.name, create: () => tool };
    }
    if (!looksLikePath(value)) {
      const near = closest(value, Object.keys(BUILT_IN_TOOLS));
      throw new AgentDefinitionError(
        at,
        `'${value}' is not a built-in tool or a file path.${near ? ` Did you mean '${near}'?` : ''} A tool entry is ${TOOL_FORMS}.`,
      );
    }
    const { file, kind } = await resolveEntryFile(value, scope.file, at);
    if (kind === 'definition') return agentToolPlan(await compiler.agentEntry(item, scope), at, undefined);
    const namespace = await importModule(file, at);
    return toolPlanFromModule(
      compiler.ctx,
      moduleValue(namespace, file, at, 'a tool, an agent or a function'),
      file,
      at,
    );
  }
  if (node.kind === 'map') {
    const reader = new MapReader(node, `${at.key}.`);
    const kind = reader.has('agent')
      ? undefined
      : node.entries.map((entry) => toCamelCase(entry.key)).find((key) => !AGENT_ENTRY_KEYS.includes(key));
    if (kind !== undefined && (toolEntryFactory(kind) || !closest(kind, AGENT_ENTRY_KEYS)))
      return registeredEntryPlan(reader, kind, scope);
    reader.checkKeys(AGENT_ENTRY_KEYS, 'an agent tool entry');
    const agentNode = reader.require('agent', 'the agent to call as a tool', './helper.yaml');
    const skipSummarization = reader.boolean('skipSummarization');
    const agent = await compiler.agentEntry({ node: agentNode, at: reader.at('agent') }, scope);
    return agentToolPlan(agent, at, skipSummarization);
  }
  throw new AgentDefinitionError(at, `a tool entry must be ${TOOL_FORMS}; got ${describeNode(node)}.`);
}

function agentToolPlan(agent: AgentPlan, at: DefinitionLocation, skipSummarization: boolean | undefined): ToolPlan {
  return { at, name: agent.name, agent, create: (build) => new AgentTool({ agent: build(agent), skipSummarization }) };
}

/** A `{ <kind>: <value> }` entry, made by the factory registered for the kind (see registerToolEntry). */
function registeredEntryPlan(reader: MapReader, kind: string, scope: Scope): ToolPlan {
  const shown = reader.shown(kind);
  const at = reader.at(kind);
  const factory = toolEntryFactory(kind);
  if (!factory) {
    const kinds = registeredToolEntryKinds();
    reader.fail(
      kind,
      `no tool entry kind '${shown}' is registered (registered: ${kinds.length > 0 ? kinds.map((k) => `'${k}'`).join(', ') : 'none'}). ${toolEntryHint(kind)} A tool entry is ${TOOL_FORMS}.`,
    );
  }
  reader.checkKeys([kind], `a '${shown}' tool entry (one key: '${shown}')`);
  const spec = entrySpec(
    reader.value(kind) ?? { kind: 'scalar', file: at.file, line: at.line ?? 1, value: null },
    at.key ?? shown,
  );
  let made: unknown;
  try {
    made = factory(spec, { file: scope.file, dir: dirname(scope.file), at });
  } catch (error) {
    if (error instanceof AgentDefinitionError) throw error;
    reader.fail(kind, error instanceof Error ? error.message : String(error), error);
  }
  if (made instanceof BaseTool) return { at, name: made.name, create: () => made };
  if (made instanceof BaseToolset) return { at, name: undefined, create: () => made };
  return reader.fail(
    kind,
    `the factory registered for '${kind}' entries returned ${made === null ? 'null' : typeof made}, not a tool or a toolset. Fix the package that registers '${kind}'.`,
  );
}

/** The entry's value as plain data; a mapping's own keys in camelCase, nested values as written. */
function entrySpec(node: SourceNode, keyPath: string): unknown {
  if (node.kind !== 'map') return toPlain(node);
  return plainRecord(normalizeEntries(node, `${keyPath}.`).values());
}
