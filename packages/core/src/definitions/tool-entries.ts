import { ConfigurationError } from '../errors.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { BaseToolset } from '../tools/base-toolset.js';
import { skillsToolEntry } from '../skills/skills-tool-entry.js';
import { codeExecutionToolEntry } from '../code-execution/code-execution-tool-entry.js';
import { loadMemoryToolEntry, preloadMemoryToolEntry } from '../memory/memory-tool-entries.js';
import type { DefinitionLocation } from './definition-error.js';

/** What a {@link ToolEntryFactory} gets besides the entry's value. */
export interface ToolEntryContext {
  /** The absolute path of the definition file; paths in the entry are relative to its folder. */
  readonly file: string;
  /** The folder of the definition file (absolute). */
  readonly dir: string;
  /** Where the entry is: file, line and key (`tools[2]`). */
  readonly at: DefinitionLocation;
}

/**
 * Makes the tool (or toolset) of a definition's `tools: [{ <kind>: <value> }]` entry. `spec` is the
 * entry's value as plain data; when it is a mapping, its own keys arrive in camelCase
 * (`tool_filter` and `tool-filter` become `toolFilter`), nested values as written.
 *
 * It is called while the definition is read and checked, before any agent is built, so it must
 * not connect or start anything (a toolset connects on first use). A thrown error is reported as
 * an `AgentDefinitionError` at the entry's file, line and key.
 */
export type ToolEntryFactory = (spec: unknown, ctx: ToolEntryContext) => BaseTool | BaseToolset;

const factories = new Map<string, ToolEntryFactory>();

/**
 * Entry kinds core makes itself: `{ skills: ./skills }` is a SkillToolset, `{ code_execution: ... }`
 * the execute_code tool, `{ load_memory: { mode, limit } }` and `{ preload_memory: ... }` the memory tools.
 */
const BUILT_IN: Readonly<Record<string, ToolEntryFactory>> = {
  skills: skillsToolEntry,
  codeExecution: codeExecutionToolEntry,
  loadMemory: loadMemoryToolEntry,
  preloadMemory: preloadMemoryToolEntry,
};

/** The packages that register well-known entry kinds, for the message when none is registered. */
const PROVIDERS: Readonly<Record<string, string>> = { mcp: '@troupe/mcp' };

const KIND = /^[a-z][a-zA-Z0-9]*$/;

/** Entry kinds the loader reads itself. */
const RESERVED = ['agent', 'skipSummarization'];

/**
 * Registers a kind of entry for the `tools:` list of agent definitions (YAML or JSON), read as
 * `{ <kind>: <value> }`. Packages register their kinds when imported (`import '@troupe/mcp'`
 * registers `mcp`), so the core loader needs no dependency on them. A later registration of the
 * same kind replaces the earlier one.
 *
 * @param kind a camelCase word such as `mcp` (`my_kind` in a file is read as `myKind`).
 * @example
 * registerToolEntry('greeting', (spec) => new FunctionTool({ name: 'greet', description: 'Greets.', execute: () => `Hello, ${String(spec)}!` }));
 * // agent.yaml:  tools: [{ greeting: world }]
 */
export function registerToolEntry(kind: string, factory: ToolEntryFactory): void {
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    throw new ConfigurationError(
      `registerToolEntry: the kind ${JSON.stringify(kind)} is not valid. Use a camelCase word such as 'mcp' or 'openApi'.`,
    );
  }
  if (RESERVED.includes(kind)) {
    throw new ConfigurationError(
      `registerToolEntry: the kind '${kind}' is reserved for agent tool entries ({ agent: ..., skip_summarization: ... }). Choose another name.`,
    );
  }
  if (Object.hasOwn(BUILT_IN, kind)) {
    throw new ConfigurationError(
      `registerToolEntry: the kind '${kind}' is built into @troupe/core ({ ${kind}: ... } entries). Choose another name.`,
    );
  }
  if (typeof factory !== 'function') {
    throw new ConfigurationError(
      `registerToolEntry('${kind}', factory): the factory must be a function (spec, ctx) => tool or toolset; got ${typeof factory}.`,
    );
  }
  factories.set(kind, factory);
}

/** The factory registered for a kind, if any. */
export function toolEntryFactory(kind: string): ToolEntryFactory | undefined {
  return Object.hasOwn(BUILT_IN, kind) ? BUILT_IN[kind] : factories.get(kind);
}

/** The registered kinds, for messages. */
export function registeredToolEntryKinds(): string[] {
  return [...Object.keys(BUILT_IN), ...factories.keys()];
}

/** How to get a kind registered: the package to import, when the kind is a well-known one. */
export function toolEntryHint(kind: string): string {
  const provider = Object.hasOwn(PROVIDERS, kind) ? PROVIDERS[kind] : undefined;
  if (provider)
    return `Add \`import '${provider}';\` to your program (it registers '${kind}:' entries; the troupe CLI imports it).`;
  return `Import the package that registers it (it calls registerToolEntry('${kind}', ...)) before loading the definition.`;
}
