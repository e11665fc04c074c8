import { assertValidAgentName } from '../agents/agent-names.js';
import { BaseAgent } from '../agents/base-agent.js';
import { FunctionAgent } from '../agents/function-agent.js';
import { AgentTool } from '../tools/agent-tool.js';
import { BaseTool } from '../tools/base-tool.js';
import { BaseToolset } from '../tools/base-toolset.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { Schema } from '../utils/schema.js';
import { instancePlan, isAgentClass, type AgentPlan, type ToolPlan } from './agent-plan.js';
import { AgentDefinitionError, displayPath, type DefinitionLocation } from './definition-error.js';
import type { LoadContext } from './load-context.js';
import { describeValue, nameFromFile } from './load-module.js';

/** A plain function exported by a module (not a class). */
export type ModuleFunction = (...args: never[]) => unknown;

/** Options of a FunctionAgent given by the definition, which win over the function's own properties. */
export interface FunctionAgentOverrides {
  name?: string | undefined;
  /** Used when neither the definition nor the function names the agent (before the module's file name). */
  fallbackName?: string | undefined;
  description?: string | undefined;
  outputKey?: string | undefined;
  inputSchema?: Schema | undefined;
  outputSchema?: Schema | undefined;
}

/**
 * The agent a module's default export stands for: the agent itself, or, for a function, a
 * FunctionAgent named after the file (or its `agentName` property) that reads the function's
 * `description`, `input_schema`/`inputSchema`, `output_schema`/`outputSchema` and `output_key`/`outputKey`.
 */
export async function agentPlanFromModule(
  ctx: LoadContext,
  value: unknown,
  file: string,
  at: DefinitionLocation,
): Promise<AgentPlan> {
  if (value instanceof BaseAgent) return instancePlan(value, at);
  if (isPlainFunction(value)) return functionAgentPlan(ctx, value, file, at, {});
  const hint = isAgentClass(value)
    ? ` It is an agent class: name it as the type of a definition ('type: ./${displayPath(file)}') to construct it with options.`
    : '';
  throw new AgentDefinitionError(
    at,
    `the default export of ${displayPath(file)} is ${describeValue(value)}, not an agent or a function. Export an agent (e.g. new LlmAgent({...})) or a function (it becomes a FunctionAgent).${hint}`,
  );
}

/** A FunctionAgent made from a module's function; `overrides` come from the definition. */
export async function functionAgentPlan(
  ctx: LoadContext,
  fn: ModuleFunction,
  file: string,
  at: DefinitionLocation,
  overrides: FunctionAgentOverrides,
): Promise<AgentPlan> {
  const read = functionProperties(fn, file, at);
  const name = overrides.name ?? read.string('agentName', 'agent_name') ?? overrides.fallbackName ?? nameFromFile(file);
  try {
    assertValidAgentName(name);
  } catch (error) {
    throw new AgentDefinitionError(
      at,
      `${(error as Error).message} (the agent of ${displayPath(file)}; set its name in the definition or an 'agentName' property on the function)`,
      { cause: error },
    );
  }
  const description = overrides.description ?? read.string('description');
  const outputKey = overrides.outputKey ?? read.string('outputKey', 'output_key');
  const inputSchema = overrides.inputSchema ?? (await read.schema(ctx, 'inputSchema', 'input_schema'));
  const outputSchema = overrides.outputSchema ?? (await read.schema(ctx, 'outputSchema', 'output_schema'));
  return {
    at,
    name,
    children: [],
    toolAgents: [],
    create: () =>
      new FunctionAgent<Schema | undefined>({ name, description, outputKey, inputSchema, outputSchema, run: fn }),
  };
}

/**
 * The tool a module's default export stands for: a tool or a toolset as is, an agent wrapped in an AgentTool,
 * or a function as a FunctionTool named after the file, with its `description` and `parameters`.
 */
export async function toolPlanFromModule(
  ctx: LoadContext,
  value: unknown,
  file: string,
  at: DefinitionLocation,
): Promise<ToolPlan> {
  if (value instanceof BaseTool) return { at, name: value.name, create: () => value };
  if (value instanceof BaseToolset) return { at, name: undefined, create: () => value };
  if (value instanceof BaseAgent) {
    const agent = instancePlan(value, at);
    return { at, name: value.name, agent, create: (build) => new AgentTool({ agent: build(agent) }) };
  }
  if (!isPlainFunction(value)) {
    throw new AgentDefinitionError(
      at,
      `the default export of ${displayPath(file)} is ${describeValue(value)}, not a tool. Export a tool (e.g. new FunctionTool({...})), a toolset, an agent, or a function (it becomes a FunctionTool named after the file).`,
    );
  }
  const read = functionProperties(value, file, at);
  const name = read.string('toolName', 'tool_name') ?? nameFromFile(file);
  const description = read.string('description') ?? '';
  const parameters = await read.schema(ctx, 'parameters', 'parameters');
  const requireConfirmation = read.boolean('requireConfirmation', 'require_confirmation');
  return {
    at,
    name,
    create: () =>
      new FunctionTool<Schema | undefined>({ name, description, parameters, requireConfirmation, execute: value }),
  };
}

function isPlainFunction(value: unknown): value is ModuleFunction {
  return (
    typeof value === 'function' && !isAgentClass(value) && !/^class[\s{]/.test(Function.prototype.toString.call(value))
  );
}

/** Reads the properties a module sets on its exported function, in camelCase or snake_case. */
function functionProperties(fn: ModuleFunction, file: string, at: DefinitionLocation) {
  const props = fn as unknown as Record<string, unknown>;
  const pick = (camel: string, snake: string): [string, unknown] =>
    props[camel] !== undefined ? [camel, props[camel]] : [snake, props[snake]];
  const fail = (key: string, expected: string, value: unknown): never => {
    throw new AgentDefinitionError(
      at,
      `the '${key}' property of the function exported by ${displayPath(file)} must be ${expected}; got ${describeValue(value)}.`,
    );
  };
  return {
    string(camel: string, snake = camel): string | undefined {
      const [key, value] = pick(camel, snake);
      if (value !== undefined && typeof value !== 'string') fail(key, 'a string', value);
      return value as string | undefined;
    },
    boolean(camel: string, snake = camel): boolean | undefined {
      const [key, value] = pick(camel, snake);
      if (value !== undefined && typeof value !== 'boolean') fail(key, 'true or false', value);
      return value as boolean | undefined;
    },
    async schema(ctx: LoadContext, camel: string, snake: string): Promise<Schema | undefined> {
      const [key, value] = pick(camel, snake);
      if (value === undefined) return undefined;
      return ctx.checkSchema(value, at, `the '${key}' property of the function exported by ${displayPath(file)}`);
    },
  };
}
