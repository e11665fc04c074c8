import type { ToolEntryContext } from '../definitions/tool-entries.js';
import { LoadMemoryTool } from '../tools/load-memory-tool.js';
import { PreloadMemoryTool } from '../tools/preload-memory-tool.js';
import type { MemorySearchOptions } from './search-memory.js';

/**
 * The `tools: [{ load_memory: { mode: vector, limit: 5 } }]` entry of agent definitions: a
 * {@link LoadMemoryTool} that searches that way (`tools: [load_memory]` is the tool with the memory
 * service's defaults).
 */
export function loadMemoryToolEntry(spec: unknown, _ctx: ToolEntryContext): LoadMemoryTool {
  return new LoadMemoryTool(searchOptions(spec, 'load_memory'));
}

/** The `tools: [{ preload_memory: { mode: hybrid, limit: 3 } }]` entry: a {@link PreloadMemoryTool} that searches that way. */
export function preloadMemoryToolEntry(spec: unknown, _ctx: ToolEntryContext): PreloadMemoryTool {
  return new PreloadMemoryTool(searchOptions(spec, 'preload_memory'));
}

/** The entry's `mode` and `limit`, checked with messages in the file's own words. */
function searchOptions(spec: unknown, tool: string): MemorySearchOptions {
  const example = `'{ ${tool}: { mode: vector, limit: 5 } }'`;
  if (spec === null) return {};
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    throw new Error(`a ${tool} entry with options is a mapping such as ${example}; got ${JSON.stringify(spec)}.`);
  }
  const entry = spec as Record<string, unknown>;
  const unknown = Object.keys(entry).filter((key) => key !== 'mode' && key !== 'limit');
  if (unknown.length > 0) {
    throw new Error(
      `a ${tool} entry does not take ${unknown.map((key) => `'${key}'`).join(', ')}; it takes mode (keyword, vector or hybrid) and limit, e.g. ${example}.`,
    );
  }
  const { mode, limit } = entry;
  if (mode !== undefined && mode !== 'keyword' && mode !== 'vector' && mode !== 'hybrid') {
    throw new Error(
      `a ${tool} entry's mode is keyword, vector or hybrid; got ${JSON.stringify(mode)}. Omit it for the memory service's default (hybrid with an embedder, keyword without).`,
    );
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
    throw new Error(
      `a ${tool} entry's limit is a whole number ≥ 1; got ${JSON.stringify(limit)}. Omit it for the memory service's maxResults.`,
    );
  }
  return { ...(mode === undefined ? {} : { mode }), ...(limit === undefined ? {} : { limit }) };
}
