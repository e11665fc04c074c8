import type { BaseLlm } from '../models/base-llm.js';
import type { Schema } from '../utils/schema.js';
import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import type { DefinitionLocation } from './definition-error.js';
import type { MapReader } from './read-values.js';

/** What every definition has, read before the keys of its type. */
export interface DefinitionCommon {
  name: string;
  description: string | undefined;
  /** Where the agent is defined (its `name:` line, or the mapping). */
  at: DefinitionLocation;
}

/** The options every agent takes, from the common keys. */
export function commonOptions(common: DefinitionCommon): { name: string; description: string | undefined } {
  return { name: common.name, description: common.description };
}

/** The agents of a list-valued key (`sub_agents`, `agents`), each a path or an inline definition. */
export async function readAgentList(compiler: Compiler, r: MapReader, key: string, scope: Scope): Promise<AgentPlan[]> {
  const plans: AgentPlan[] = [];
  for (const item of r.list(key, '[./helper.yaml]') ?? []) plans.push(await compiler.agentEntry(item, scope));
  return plans;
}

/** A JSON Schema value (`input_schema`, `output_schema`), compiled to check it. */
export async function readSchema(
  compiler: Compiler,
  r: MapReader,
  key: 'inputSchema' | 'outputSchema',
): Promise<Schema | undefined> {
  const schema = r.plainObject(key, '{ type: object, properties: { topic: { type: string } } }');
  return schema === undefined ? undefined : compiler.ctx.checkSchema(schema, r.at(key), `'${r.shown(key)}'`);
}

/**
 * The agent's own `model`, else none when an ancestor LlmAgent of the same tree has one to inherit,
 * else the loader's default model (`type: llm` and `type: supervisor` read it alike).
 */
export function readModel(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): BaseLlm | undefined {
  const modelName = r.word('model', 'gemini-2.5-flash');
  if (modelName !== undefined) return compiler.ctx.model(modelName, r.at('model'));
  return scope.inheritsModel ? undefined : compiler.ctx.defaultModel(common.at);
}
