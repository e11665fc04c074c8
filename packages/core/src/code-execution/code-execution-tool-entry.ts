import { resolve } from 'node:path';
import type { ToolEntryContext } from '../definitions/tool-entries.js';
import { codeExecutionTool, type CodeExecutionTool } from './code-execution-tool.js';
import type { CodeLanguage } from './code-executor.js';
import { ContainerExecutor } from './container-executor.js';
import { LocalProcessExecutor } from './local-process-executor.js';

const KEYS = ['executor', 'root', 'languages', 'timeoutMs', 'maxOutputBytes', 'maxFileBytes', 'image'];

/**
 * The `tools: [{ code_execution: { ... } }]` entry of agent definitions: the `execute_code` tool
 * over a `LocalProcessExecutor` (`executor: local`, the default) or a `ContainerExecutor`
 * (`executor: container`, with `image`). `root` is relative to the definition file
 * (default `.troupe/code`); `languages`, `timeout_ms`, `max_output_bytes` and `max_file_bytes` are
 * the executor's options. `{ code_execution: true }` takes every default.
 */
export function codeExecutionToolEntry(spec: unknown, ctx: ToolEntryContext): CodeExecutionTool {
  const options = spec === true || spec === null ? {} : spec;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new Error(
      `a code_execution entry is true or a mapping such as '{ code_execution: { languages: [python], timeout_ms: 10000 } }'; got ${JSON.stringify(spec)}.`,
    );
  }
  const entry = options as Record<string, unknown>;
  const unknown = Object.keys(entry).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) {
    throw new Error(
      `a code_execution entry does not take ${unknown.map((key) => `'${key}'`).join(', ')}; it takes executor, root, languages, timeout_ms, max_output_bytes, max_file_bytes and image.`,
    );
  }
  const kind = entry.executor ?? 'local';
  if (kind !== 'local' && kind !== 'container') {
    throw new Error(`a code_execution entry's executor is 'local' or 'container'; got ${JSON.stringify(kind)}.`);
  }
  if (entry.root !== undefined && typeof entry.root !== 'string') {
    throw new Error(`a code_execution entry's root is a folder path; got ${JSON.stringify(entry.root)}.`);
  }
  if (kind === 'local' && entry.image !== undefined) {
    throw new Error(`a code_execution entry's image applies to 'executor: container' only; remove it or add that.`);
  }
  const common = {
    root: resolve(ctx.dir, entry.root ?? '.troupe/code'),
    ...(entry.languages !== undefined ? { languages: entry.languages as CodeLanguage[] } : {}),
    ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs as number } : {}),
    ...(entry.maxOutputBytes !== undefined ? { maxOutputBytes: entry.maxOutputBytes as number } : {}),
    ...(entry.maxFileBytes !== undefined ? { maxFileBytes: entry.maxFileBytes as number } : {}),
  };
  // The executors check the values themselves, naming the option and the fix.
  const executor =
    kind === 'container'
      ? new ContainerExecutor({ ...common, ...(entry.image !== undefined ? { image: entry.image as string } : {}) })
      : new LocalProcessExecutor(common);
  return codeExecutionTool({ executor });
}
