import type { CallbackContext } from '../agents/callback-context.js';
import { contentText } from '../events/content.js';
import { memoryText, memoryTime } from '../memory/memory-text.js';
import { checkMemorySearchOptions, requireMemoryService, type MemorySearchOptions } from '../memory/search-memory.js';
import type { LlmRequest } from '../models/llm-request.js';
import { appendInstruction } from './append-instruction.js';
import { BaseTool } from './base-tool.js';

/**
 * ADK's `PreloadMemoryTool`: the model never calls it (it has no declaration). Before each model
 * request of an agent that has it, it searches the current user's memory with the text of the
 * user's current message and, when something is found, appends it to the system instruction
 * between `<PAST_CONVERSATIONS>` tags, one line per memory (`author: text`, after its time).
 * Needs `Runner({ memoryService })`; without one the agent's first model request fails with a
 * `ConfigurationError` that says so.
 */
export class PreloadMemoryTool extends BaseTool {
  private readonly search: MemorySearchOptions;

  /**
   * @param options how the user's message is searched: `mode` (`'keyword'`, `'vector'` or
   * `'hybrid'`; default: the memory service's) and `limit` (default: the service's `maxResults`).
   * @example
   * const remember = new PreloadMemoryTool({ mode: 'hybrid', limit: 3 });
   */
  constructor(options: MemorySearchOptions = {}) {
    super({
      name: 'preload_memory',
      description: 'Adds memories that match the user message to the system instruction; not called by the model.',
    });
    this.search = checkMemorySearchOptions(options, 'PreloadMemoryTool');
  }

  override async getDeclaration(): Promise<undefined> {
    return undefined;
  }

  override async runAsync(): Promise<unknown> {
    return {
      error: 'preload_memory is not a function you can call: the memories it finds are already in your instructions.',
    };
  }

  override async processRequest({
    context,
    request,
  }: {
    context: CallbackContext;
    request: LlmRequest;
  }): Promise<void> {
    const ctx = context.invocationContext;
    // Checked first, so a missing memory service shows on the first run, not the first message with text.
    const service = requireMemoryService(ctx, `Tool 'preload_memory' of agent '${context.agentName}'`);
    const query = contentText(ctx.userContent).trim();
    if (query === '') return;
    const { memories } = await service.searchMemory({
      appName: ctx.session.appName,
      userId: ctx.session.userId,
      query,
      ...this.search,
    });
    const lines: string[] = [];
    for (const entry of memories) {
      const text = memoryText(entry);
      if (!text) continue;
      const time = memoryTime(entry);
      if (time) lines.push(`Time: ${time}`);
      lines.push(entry.author ? `${entry.author}: ${text}` : text);
    }
    if (lines.length === 0) return;
    appendInstruction(
      request,
      `The following content is from your previous conversations with the user.\nThey may be useful for answering the user's current query.\n<PAST_CONVERSATIONS>\n${lines.join('\n')}\n</PAST_CONVERSATIONS>`,
    );
  }
}

/**
 * The built-in `preload_memory` tool (SPEC §15): add it to an agent's `tools` and every model
 * request of that agent carries the memories that match the user's current message in its
 * system instruction, without a tool call. In YAML: `tools: [preload_memory]`.
 *
 * @example
 * const assistant = new LlmAgent({ name: 'assistant', model, tools: [preloadMemoryTool] });
 */
export const preloadMemoryTool: BaseTool = new PreloadMemoryTool();
