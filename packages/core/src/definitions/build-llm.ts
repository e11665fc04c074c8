import { LlmAgent } from '../agents/llm-agent.js';
import type { IncludeContents } from '../agents/llm/history.js';
import type { ContextCache } from '../models/context-cache.js';
import type { GenerateContentConfig } from '../models/llm-request.js';
import type { WorkingMemoryOptions } from '../working-memory/working-memory-options.js';
import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { commonOptions, readAgentList, readModel, readSchema, type DefinitionCommon } from './build-common.js';
import { readGuardrails } from './build-guardrails.js';
import { compileTools } from './build-tools.js';
import { AgentDefinitionError } from './definition-error.js';
import { describeNode, toPlain } from './parse-document.js';
import type { MapReader } from './read-values.js';

/**
 * Reads a `type: llm` definition (the default type). An LlmAgent that names no model gets the
 * loader's default model unless an ancestor LlmAgent of the same tree has one to inherit.
 */
export async function compileLlm(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const { ctx } = compiler;
  const model = readModel(compiler, r, scope, common);
  const fallbackModels = (r.list('fallbackModels', '[openai/gpt-4o-mini]') ?? []).map((item) => {
    if (item.node.kind !== 'scalar' || typeof item.node.value !== 'string' || item.node.value === '') {
      throw new AgentDefinitionError(
        item.at,
        `a fallback model must be a model name such as 'openai/gpt-4o-mini'; got ${describeNode(item.node)}.`,
      );
    }
    return ctx.model(item.node.value, item.at);
  });
  const settings = {
    instruction: r.string('instruction', 'Answer the user.'),
    globalInstruction: r.string('globalInstruction', 'Be concise.'),
    outputKey: r.word('outputKey', 'answer'),
    inputKey: r.word('inputKey', 'request'),
    includeContents: readIncludeContents(r),
    disallowTransferToParent: r.boolean('disallowTransferToParent'),
    disallowTransferToPeers: r.boolean('disallowTransferToPeers'),
    generateContentConfig: readGenerateContentConfig(r),
    inputSchema: await readSchema(compiler, r, 'inputSchema'),
    outputSchema: await readSchema(compiler, r, 'outputSchema'),
    inputGuardrails: await readGuardrails(r, 'inputGuardrails', scope),
    outputGuardrails: await readGuardrails(r, 'outputGuardrails', scope),
    streamBeforeOutputGuardrails: r.boolean('streamBeforeOutputGuardrails'),
    allowCodeExecution: r.boolean('allowCodeExecution'),
    workingMemory: await readWorkingMemory(compiler, r),
    contextCache: readContextCache(r),
  };
  const childScope: Scope = { ...scope, inheritsModel: scope.inheritsModel || model !== undefined };
  const subAgents = await readAgentList(compiler, r, 'subAgents', childScope);
  const tools = await compileTools(compiler, r.list('tools', '[./get-weather.js, exit_loop]') ?? [], scope);
  return {
    at: common.at,
    name: common.name,
    children: subAgents,
    toolAgents: tools.flatMap((tool) => (tool.agent ? [tool.agent] : [])),
    create: (build) =>
      new LlmAgent({
        ...commonOptions(common),
        ...settings,
        model,
        fallbackModels,
        subAgents: subAgents.map(build),
        tools: tools.map((tool) => tool.create(build)),
      }),
  };
}

/**
 * `working_memory: { scope: user | session, schema?: <JSON Schema> | template?: <markdown>, key? }`;
 * `schema` may also be the markdown template itself, as in TypeScript.
 */
async function readWorkingMemory(compiler: Compiler, r: MapReader): Promise<WorkingMemoryOptions | undefined> {
  const w = r.map('workingMemory', '{ scope: user }');
  if (!w) return undefined;
  w.checkKeys(['scope', 'schema', 'template', 'key'], 'workingMemory');
  w.require('scope', "whose record it is, 'user' (across their sessions) or 'session'", 'user');
  const options: WorkingMemoryOptions = { scope: w.oneOf('scope', ['user', 'session'] as const)! };
  const key = w.word('key', 'profile');
  if (key !== undefined) options.key = key;
  if (w.has('schema') && w.has('template'))
    w.fail('template', `'${w.shown('schema')}' and '${w.shown('template')}' are both set; keep one of them.`);
  const template = w.string('template', '"# User\\n- Name:"');
  if (template !== undefined) options.schema = template;
  else if (w.value('schema')?.kind === 'scalar') options.schema = w.string('schema', '"# User\\n- Name:"')!;
  else {
    const schema = w.plainObject('schema', '{ type: object, properties: { name: { type: string } } }');
    if (schema) options.schema = await compiler.ctx.checkSchema(schema, w.at('schema'), `'${w.shown('schema')}'`);
  }
  return options;
}

/** `context_cache`: `true`, `false`, or `{ ttl?: 5m | 1h, min_tokens? }`. */
function readContextCache(r: MapReader): ContextCache | undefined {
  const node = r.value('contextCache');
  if (node === undefined || node.kind !== 'map') return r.boolean('contextCache');
  const c = r.map('contextCache', '{ ttl: 1h }')!;
  c.checkKeys(['ttl', 'minTokens'], 'contextCache');
  const ttl = c.oneOf('ttl', ['5m', '1h'] as const);
  const minTokens = c.integer('minTokens', 1, 4096);
  return { ...(ttl !== undefined ? { ttl } : {}), ...(minTokens !== undefined ? { minTokens } : {}) };
}

/** `include_contents`: `default`, `none`, or a window `{ last_turns?, max_tokens? }`. */
function readIncludeContents(r: MapReader): IncludeContents | undefined {
  const node = r.value('includeContents');
  if (node === undefined || node.kind !== 'map') return r.oneOf('includeContents', ['default', 'none'] as const);
  const w = r.map('includeContents', '{ last_turns: 5 }')!;
  w.checkKeys(['lastTurns', 'maxTokens'], 'includeContents');
  const lastTurns = w.integer('lastTurns', 0, 5);
  const maxTokens = w.integer('maxTokens', 1, 8000);
  if (lastTurns === undefined && maxTokens === undefined)
    r.fail(
      'includeContents',
      `'${r.shown('includeContents')}' as a window needs last_turns, max_tokens or both, e.g. '{ last_turns: 5 }'.`,
    );
  return { ...(lastTurns !== undefined ? { lastTurns } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) };
}

const GENERATION_NUMBERS = { temperature: 0.2, topP: 0.9 } as const;
const GENERATION_INTEGERS = { topK: [1, 40], maxOutputTokens: [1, 1024], seed: [0, 42] } as const;

/** `generate_content_config`: the known settings are checked and camelCased; others pass through as written. */
function readGenerateContentConfig(r: MapReader): GenerateContentConfig | undefined {
  const g = r.map('generateContentConfig', '{ temperature: 0.2, max_output_tokens: 1024 }');
  if (!g) return undefined;
  const config: GenerateContentConfig = {};
  for (const key of g.keys()) {
    if (Object.hasOwn(GENERATION_NUMBERS, key))
      config[key] = g.number(key, GENERATION_NUMBERS[key as keyof typeof GENERATION_NUMBERS]);
    else if (Object.hasOwn(GENERATION_INTEGERS, key)) {
      const [min, example] = GENERATION_INTEGERS[key as keyof typeof GENERATION_INTEGERS];
      config[key] = g.integer(key, min, example);
    } else if (key === 'stopSequences') {
      config.stopSequences = (g.list(key, '["END"]') ?? []).map((item) => {
        if (item.node.kind !== 'scalar' || typeof item.node.value !== 'string')
          throw new AgentDefinitionError(item.at, `a stop sequence must be a string; got ${describeNode(item.node)}.`);
        return item.node.value;
      });
    } else {
      // Provider settings pass through as written (defined, so a key like __proto__ stays data).
      Object.defineProperty(config, g.shown(key), {
        value: toPlain(g.value(key)!),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return config;
}
