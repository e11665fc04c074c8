import type { CallbackContext } from '../agents/callback-context.js';
import { memoryText, memoryTime } from '../memory/memory-text.js';
import { checkMemorySearchOptions, requireMemoryService, type MemorySearchOptions } from '../memory/search-memory.js';
import type { FunctionDeclaration, LlmRequest } from '../models/llm-request.js';
import { appendInstruction } from './append-instruction.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

const INSTRUCTION =
  'You have memory of earlier conversations with this user. When a question needs something they told you before (a preference, a fact about them, an earlier decision), call the load_memory function with a query of a few key words.';

/**
 * ADK's `load_memory`: the model calls it with `{ query }` to search the long-term memory of the
 * current user in the current app, and gets `{ memories: [{ content, author, timestamp }] }` (text,
 * who said it, ISO time), best first. Every request of an agent that offers it tells the model that
 * it has memory. Needs `Runner({ memoryService })`; without one the agent's first model request
 * fails with a `ConfigurationError` that says so.
 */
export class LoadMemoryTool extends BaseTool {
  private readonly search: MemorySearchOptions;

  /**
   * @param options how the tool searches: `mode` (`'keyword'`, `'vector'` or `'hybrid'`; default:
   * the memory service's, hybrid with an embedder) and `limit` (default: the service's `maxResults`).
   * @example
   * const recall = new LoadMemoryTool({ mode: 'vector', limit: 5 });
   */
  constructor(options: MemorySearchOptions = {}) {
    super({
      name: 'load_memory',
      description: 'Loads memories of earlier conversations with the current user that match a query.',
    });
    this.search = checkMemorySearchOptions(options, 'LoadMemoryTool');
  }

  override async getDeclaration(): Promise<FunctionDeclaration> {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'Key words of what to remember, e.g. "favourite city".' } },
        required: ['query'],
      },
    };
  }

  override async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const query = args.query;
    if (typeof query !== 'string') {
      return {
        error: `load_memory takes { query: string }; got query ${JSON.stringify(query) ?? 'undefined'}. Call it again with a few key words as the query.`,
      };
    }
    const { memories } = await ctx.searchMemory(query, this.search);
    return {
      memories: memories.map((entry) => {
        const time = memoryTime(entry);
        return {
          content: memoryText(entry),
          ...(entry.author === undefined ? {} : { author: entry.author }),
          ...(time === undefined ? {} : { timestamp: time }),
        };
      }),
    };
  }

  override async processRequest({
    context,
    request,
  }: {
    context: CallbackContext;
    request: LlmRequest;
  }): Promise<void> {
    requireMemoryService(context.invocationContext, `Tool 'load_memory' of agent '${context.agentName}'`);
    appendInstruction(request, INSTRUCTION);
  }
}

/**
 * The built-in `load_memory` tool (SPEC §15): add it to an agent's `tools` to let the model search
 * what the user said in earlier sessions. In YAML: `tools: [load_memory]`.
 *
 * @example
 * const assistant = new LlmAgent({ name: 'assistant', model, tools: [loadMemoryTool] });
 * const runner = new Runner({ appName: 'assistant', agent: assistant, sessionService, memoryService: new InMemoryMemoryService() });
 */
export const loadMemoryTool: BaseTool = new LoadMemoryTool();
