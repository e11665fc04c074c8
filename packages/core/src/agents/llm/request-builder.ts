import type { BaseLlm } from '../../models/base-llm.js';
import type { FunctionDeclaration, GenerateContentConfig, LlmRequest } from '../../models/llm-request.js';
import { BaseTool } from '../../tools/base-tool.js';
import { toJsonSchema, type Schema } from '../../utils/schema.js';
import { CallbackContext } from '../callback-context.js';
import type { BaseAgent } from '../base-agent.js';
import type { InvocationContext } from '../invocation-context.js';
import { buildHistory, type IncludeContents } from './history.js';
import { applyWindow } from './history-window.js';
import { fillNodeFields, fillTemplate } from './instructions.js';
import { contextCacheKey, type ContextCacheOptions } from '../../models/context-cache.js';
import { transferInstruction } from './transfer.js';

/** An instruction: a template string (`{key}` from state) or a function of the context. */
export type Instruction = string | ((ctx: InvocationContext) => string | Promise<string>);

/** What an LlmAgent contributes to its model requests. */
export interface RequestSource {
  readonly agent: BaseAgent;
  readonly globalInstruction: Instruction | undefined;
  readonly instruction: Instruction;
  readonly includeContents: IncludeContents;
  readonly generateContentConfig: GenerateContentConfig | undefined;
  readonly outputSchema: Schema | undefined;
  /** The agent's own `contextCache` (checked): false turns off what the runner turned on. */
  readonly contextCache: Required<ContextCacheOptions> | false | undefined;
}

/**
 * One model request: the system instruction (global, own, transfer targets), the visible history,
 * the tool declarations and the response schema, then each tool's `processRequest` edits.
 */
export async function buildRequest(
  ctx: InvocationContext,
  source: RequestSource,
  model: BaseLlm,
  tools: ReadonlyMap<string, BaseTool>,
  targets: readonly BaseAgent[],
): Promise<LlmRequest> {
  const name = source.agent.name;
  const system: string[] = [];
  if (source.globalInstruction) system.push(await render(source.globalInstruction, ctx, name));
  if (source.instruction) {
    // A template fills synchronously: no promise for it (every model call has one).
    const own = render(source.instruction, ctx, name);
    system.push(typeof own === 'string' ? own : await own);
  }
  if (targets.length > 0) system.push(transferInstruction(source.agent, targets));

  const cache = source.contextCache ?? ctx.shared.contextCache ?? false;
  const include = source.includeContents;
  const view = buildHistory(ctx, name, include === 'none' ? 'none' : 'default');
  let contents = typeof include === 'object' ? await applyWindow(view, include, model, cache !== false) : view.contents;
  if (contents.length === 0) {
    contents = [{ role: 'user', parts: [{ text: 'Handle the request as the system instruction says.' }] }];
  }
  const request: LlmRequest = { model: model.model, contents, config: { ...source.generateContentConfig } };
  if (cache !== false) {
    const { appName, userId, id } = ctx.session;
    request.cache = { key: contextCacheKey(appName, userId, id, ctx.path), ttl: cache.ttl, minTokens: cache.minTokens };
  }
  const systemInstruction = system.filter(Boolean).join('\n\n');
  if (systemInstruction) request.config.systemInstruction = systemInstruction;
  const declarations: FunctionDeclaration[] = [];
  for (const tool of tools.values()) {
    const pending = tool.getDeclaration();
    // Tools that keep their declaration hand back the same promise each time: read it without awaiting.
    let declaration = settledDeclarations.get(pending);
    if (declaration === undefined) {
      declaration = (await pending) ?? null;
      settledDeclarations.set(pending, declaration);
    }
    if (declaration) declarations.push(declaration);
  }
  if (declarations.length > 0) request.config.tools = declarations;
  if (source.outputSchema) request.config.responseSchema = await toJsonSchema(source.outputSchema);
  // Tools that edit the request (preloadMemoryTool) see it complete, in the order they are offered.
  // Only tools that edit requests are called (a promise per tool per model call adds up on the hot path).
  let context: CallbackContext | undefined;
  for (const tool of tools.values()) {
    if (tool.processRequest === BaseTool.prototype.processRequest) continue;
    context ??= new CallbackContext(ctx);
    await tool.processRequest({ context, request });
  }
  return request;
}

const settledDeclarations = new WeakMap<Promise<FunctionDeclaration | undefined>, FunctionDeclaration | null>();

/** Function instructions are called as they are; templates resolve from a skill's input first, then state. */
function render(instruction: Instruction, ctx: InvocationContext, agentName: string): string | Promise<string> {
  if (typeof instruction === 'function') return instruction(ctx);
  const scope = ctx.historyScope;
  const input = scope?.templateInput;
  const state = ctx.session.state;
  const text = scope?.nodeOutputs ? fillNodeFields(instruction, agentName, input, scope.nodeOutputs) : instruction;
  return input ? fillTemplate(text, agentName, input, state) : fillTemplate(text, agentName, state);
}
