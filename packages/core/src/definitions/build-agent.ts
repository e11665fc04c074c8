import { assertValidAgentName } from '../agents/agent-names.js';
import { BaseAgent } from '../agents/base-agent.js';
import { LoopAgent } from '../agents/loop-agent.js';
import { ParallelAgent } from '../agents/parallel-agent.js';
import { RoutedAgent, type AgentRouter } from '../agents/routed-agent.js';
import { SequentialAgent } from '../agents/sequential-agent.js';
import { instancePlan, isAgentClass, type AgentPlan, type Compiler, type Scope } from './agent-plan.js';
import { commonOptions, readAgentList, readSchema, type DefinitionCommon } from './build-common.js';
import { compileLlm } from './build-llm.js';
import { compilePlanExecute, PLAN_EXECUTE_KEYS } from './build-plan-execute.js';
import { compileGroupChat, GROUP_CHAT_KEYS } from './build-group-chat.js';
import { compileSupervisor, SUPERVISOR_KEYS } from './build-supervisor.js';
import { compileTeam } from './build-team.js';
import { compileWorkflow, WORKFLOW_KEYS } from './build-workflow.js';
import { AgentDefinitionError, displayPath, type DefinitionLocation } from './definition-error.js';
import type { LoadContext } from './load-context.js';
import {
  importModule,
  looksLikePath,
  moduleValue,
  nameFromFile,
  resolveEntryFile,
  toIdentifier,
} from './load-module.js';
import { agentPlanFromModule, functionAgentPlan, type ModuleFunction } from './module-agents.js';
import { closest } from './normalize-keys.js';
import { describeNode, toPlain } from './parse-document.js';
import { MapReader, type ListItem } from './read-values.js';

const COMMON_KEYS = ['type', 'name', 'description'];

/** The keys each agent type accepts (camelCase; snake_case and kebab-case are read the same). */
const AGENT_KEYS = {
  llm: [
    ...COMMON_KEYS,
    'model',
    'fallbackModels',
    'instruction',
    'globalInstruction',
    'tools',
    'subAgents',
    'outputKey',
    'outputSchema',
    'inputSchema',
    'inputKey',
    'includeContents',
    'disallowTransferToParent',
    'disallowTransferToPeers',
    'generateContentConfig',
    'inputGuardrails',
    'outputGuardrails',
    'streamBeforeOutputGuardrails',
    'allowCodeExecution',
    'workingMemory',
    'contextCache',
  ],
  sequential: [...COMMON_KEYS, 'subAgents'],
  parallel: [...COMMON_KEYS, 'subAgents', 'maxConcurrency'],
  loop: [...COMMON_KEYS, 'subAgents', 'maxIterations'],
  routed: [...COMMON_KEYS, 'agents', 'router'],
  team: [
    ...COMMON_KEYS,
    'skills',
    'mode',
    'inputSchema',
    'outputSchema',
    'outputKey',
    'iterateOn',
    'concurrency',
    'iterateWithPreviousOutput',
    'includeAllStepsOutput',
    'reflection',
  ],
  function: [...COMMON_KEYS, 'run', 'outputKey', 'inputSchema', 'outputSchema'],
  plan_execute: [...COMMON_KEYS, ...PLAN_EXECUTE_KEYS],
  supervisor: [...COMMON_KEYS, ...SUPERVISOR_KEYS],
  group_chat: [...COMMON_KEYS, ...GROUP_CHAT_KEYS],
  workflow: [...COMMON_KEYS, ...WORKFLOW_KEYS],
} as const satisfies Record<string, readonly string[]>;

type AgentType = keyof typeof AGENT_KEYS;
const AGENT_TYPES = Object.keys(AGENT_KEYS) as AgentType[];

/** The reader of a whole tree of definitions for one load: entries, files (with cycle detection), definitions. */
export class DefinitionCompiler implements Compiler {
  constructor(readonly ctx: LoadContext) {}

  /** The agent of a definition file. `at` is where it is referenced (undefined for the root). */
  async file(file: string, at: DefinitionLocation | undefined, parent: Scope | undefined): Promise<AgentPlan> {
    const chain = parent?.chain ?? [];
    if (chain.includes(file)) {
      const cycle = [...chain.slice(chain.indexOf(file)), file].map(displayPath).join(' → ');
      throw new AgentDefinitionError(
        at ?? { file },
        `the agent files form a cycle: ${cycle}. A definition cannot include itself, directly or through other files; remove one of these references.`,
      );
    }
    const node = await this.ctx.parse(file, at);
    const scope: Scope = { file, chain: [...chain, file], inheritsModel: parent?.inheritsModel ?? false };
    return this.definition(new MapReader(node, ''), scope, nameFromFile(file));
  }

  /** The agent of a module file (its default export). */
  async module(file: string, at: DefinitionLocation): Promise<AgentPlan> {
    const namespace = await importModule(file, at);
    return agentPlanFromModule(this.ctx, moduleValue(namespace, file, at, 'an agent or a function'), file, at);
  }

  async agentEntry(item: ListItem, scope: Scope): Promise<AgentPlan> {
    const { node, at } = item;
    if (node.kind === 'scalar' && typeof node.value === 'string') {
      const { file, kind } = await resolveEntryFile(node.value, scope.file, at);
      return kind === 'definition' ? this.file(file, at, scope) : this.module(file, at);
    }
    if (node.kind === 'map') return this.definition(new MapReader(node, `${at.key}.`), scope, undefined);
    throw new AgentDefinitionError(
      at,
      `'${at.key}' must be a path to an agent file (.yaml, .yml, .json, .js, .ts) relative to this file, or an inline definition (a mapping with 'name:' and 'type:'); got ${describeNode(node)}.`,
    );
  }

  /** One agent definition (a whole file, or inline). `defaultName` is the file's name, for files. */
  async definition(r: MapReader, scope: Scope, defaultName: string | undefined): Promise<AgentPlan> {
    const type = r.word('type', 'llm') ?? 'llm';
    if (!(AGENT_TYPES as string[]).includes(type)) {
      if (looksLikePath(type)) return this.customType(r, scope, type, defaultName);
      const near = closest(type, AGENT_TYPES);
      r.fail(
        'type',
        `'${r.shown('type')}' is '${type}', which is not an agent type.${near ? ` Did you mean '${near}'?` : ''} Use one of ${AGENT_TYPES.join(', ')}, or the path of a module that exports an agent (e.g. 'type: ./my-agent.js').`,
      );
    }
    const agentType = type as AgentType;
    r.checkKeys(AGENT_KEYS[agentType], `${agentType === 'llm' ? 'an' : 'a'} ${agentType} agent`, (key) =>
      ownersOf(key, agentType),
    );
    if (agentType === 'function') return this.functionType(r, scope, defaultName);
    const common = readCommon(r, defaultName);
    switch (agentType) {
      case 'llm':
        return compileLlm(this, r, scope, common);
      case 'sequential':
        return this.workflow(
          r,
          scope,
          common,
          (subAgents) => new SequentialAgent({ ...commonOptions(common), subAgents }),
        );
      case 'parallel': {
        const maxConcurrency = r.integer('maxConcurrency', 1, 2);
        return this.workflow(
          r,
          scope,
          common,
          (subAgents) => new ParallelAgent({ ...commonOptions(common), subAgents, maxConcurrency }),
        );
      }
      case 'loop': {
        const maxIterations = r.integer('maxIterations', 1, 5);
        return this.workflow(
          r,
          scope,
          common,
          (subAgents) => new LoopAgent({ ...commonOptions(common), subAgents, maxIterations }),
        );
      }
      case 'routed':
        return this.routed(r, scope, common);
      case 'team':
        return compileTeam(this, r, scope, common);
      case 'plan_execute':
        return compilePlanExecute(this, r, scope, common);
      case 'supervisor':
        return compileSupervisor(this, r, scope, common);
      case 'group_chat':
        return compileGroupChat(this, r, scope, common);
      case 'workflow':
        return compileWorkflow(this, r, scope, common);
    }
  }

  private async workflow(
    r: MapReader,
    scope: Scope,
    common: DefinitionCommon,
    make: (subAgents: BaseAgent[]) => BaseAgent,
  ): Promise<AgentPlan> {
    const subAgents = await readAgentList(this, r, 'subAgents', scope);
    return {
      at: common.at,
      name: common.name,
      children: subAgents,
      toolAgents: [],
      create: (build) => make(subAgents.map(build)),
    };
  }

  private async routed(r: MapReader, scope: Scope, common: DefinitionCommon): Promise<AgentPlan> {
    const agentsNode = r.require(
      'agents',
      'the agents to route between, as a mapping of key to agent or a list',
      '{ primary: ./primary.yaml, fallback: ./fallback.yaml }',
    );
    // A mapping keeps its keys (the router's keys, as written); a list is keyed by agent name.
    let keyedPlans: [string, AgentPlan][] | undefined;
    let listedPlans: AgentPlan[] | undefined;
    if (agentsNode.kind === 'map') {
      const shown = `${r.keyPrefix}${r.shown('agents')}`;
      keyedPlans = [];
      for (const entry of agentsNode.entries) {
        keyedPlans.push([
          entry.key,
          await this.agentEntry(
            { node: entry.value, at: { file: agentsNode.file, line: entry.line, key: `${shown}.${entry.key}` } },
            scope,
          ),
        ]);
      }
    } else {
      listedPlans = await readAgentList(this, r, 'agents', scope);
    }
    const plans = listedPlans ?? keyedPlans!.map(([, plan]) => plan);
    if (plans.length === 0)
      r.fail('agents', `'${r.shown('agents')}' is empty; a routed agent needs at least one agent to route to.`);
    const routerPath =
      r.word('router', './router.js') ??
      r.fail(
        'router',
        `'${r.shown('router')}' is required: the module whose default export is the router function (agents, ctx, errorContext) => key. Add e.g. '${r.shown('router')}: ./router.js'.`,
      );
    const router = (
      await this.moduleFunction(
        r,
        'router',
        routerPath,
        scope,
        'the router function (agents, ctx, errorContext) => key',
      )
    ).value as AgentRouter;
    return {
      at: common.at,
      name: common.name,
      children: plans,
      toolAgents: [],
      create: (build) => {
        const agents = listedPlans
          ? listedPlans.map(build)
          : Object.fromEntries(keyedPlans!.map(([key, plan]) => [key, build(plan)]));
        return new RoutedAgent({ ...commonOptions(common), agents, router });
      },
    };
  }

  private async functionType(r: MapReader, scope: Scope, defaultName: string | undefined): Promise<AgentPlan> {
    const runPath =
      r.word('run', './my-function.js') ??
      r.fail(
        'run',
        `'${r.shown('run')}' is required for a function agent: the module whose default export is the function (input, ctx) => output. Add e.g. '${r.shown('run')}: ./my-function.js'.`,
      );
    const fn = await this.moduleFunction(r, 'run', runPath, scope, 'the function (input, ctx) => output');
    return this.functionAgent(r, fn.value, fn.file, r.at('run'), defaultName);
  }

  /** A FunctionAgent of a module's function; the definition's keys win over the function's properties. */
  private async functionAgent(
    r: MapReader,
    fn: ModuleFunction,
    file: string,
    at: DefinitionLocation,
    defaultName: string | undefined,
  ): Promise<AgentPlan> {
    return functionAgentPlan(this.ctx, fn, file, r.has('name') ? r.at('name') : at, {
      name: r.has('name') ? readCommon(r, undefined).name : undefined,
      fallbackName: defaultName,
      description: r.string('description'),
      outputKey: r.word('outputKey', 'result'),
      inputSchema: await readSchema(this, r, 'inputSchema'),
      outputSchema: await readSchema(this, r, 'outputSchema'),
    });
  }

  /** `type: ./my-agent.js`: a module exporting an agent, an agent class (constructed with the keys), or a function. */
  private async customType(
    r: MapReader,
    scope: Scope,
    path: string,
    defaultName: string | undefined,
  ): Promise<AgentPlan> {
    const at = r.at('type');
    const { file, kind } = await resolveEntryFile(path, scope.file, at);
    if (kind !== 'module')
      r.fail(
        'type',
        `'${path}' is a definition file; as a type, name a .js/.ts module that exports an agent, an agent class or a function. To include a definition file, list it under sub_agents, skills or tools.`,
      );
    const value = moduleValue(await importModule(file, at), file, at, 'an agent, an agent class or a function');
    if (value instanceof BaseAgent) {
      const extra = r.keys().filter((key) => key !== 'type');
      if (extra.length > 0) {
        r.fail(
          extra[0]!,
          `${displayPath(file)} exports a ready-made agent ('${value.name}'), which takes no settings here ('${r.shown(extra[0]!)}'). Remove the keys, or export the agent's class to construct it with these options.`,
        );
      }
      return instancePlan(value, at);
    }
    if (isAgentClass(value)) return this.agentClass(r, scope, value, defaultName);
    if (typeof value === 'function') {
      r.checkKeys(
        ['type', 'name', 'description', 'outputKey', 'inputSchema', 'outputSchema'],
        `a function agent from ${displayPath(file)}`,
      );
      return this.functionAgent(r, value as ModuleFunction, file, at, defaultName);
    }
    return agentPlanFromModule(this.ctx, value, file, at);
  }

  /** A custom agent class: constructed with the definition's keys in camelCase (plain values) and its sub-agents. */
  private async agentClass(
    r: MapReader,
    scope: Scope,
    AgentClass: new (options: Record<string, unknown>) => BaseAgent,
    defaultName: string | undefined,
  ): Promise<AgentPlan> {
    const common = readCommon(r, defaultName);
    const settings = Object.fromEntries(
      r.keys().flatMap((key) => (key === 'type' || key === 'subAgents' ? [] : [[key, toPlain(r.value(key)!)]])),
    ) as Record<string, unknown>;
    const subAgents = await readAgentList(this, r, 'subAgents', scope);
    return {
      at: common.at,
      name: common.name,
      children: subAgents,
      toolAgents: [],
      create: (build) => new AgentClass({ ...settings, ...commonOptions(common), subAgents: subAgents.map(build) }),
    };
  }

  /** The default export of a module named by `key`, which must be a function. */
  private async moduleFunction(
    r: MapReader,
    key: string,
    path: string,
    scope: Scope,
    what: string,
  ): Promise<{ value: ModuleFunction; file: string }> {
    const at = r.at(key);
    const { file, kind } = await resolveEntryFile(path, scope.file, at);
    if (kind !== 'module')
      r.fail(key, `'${path}' is not a module; '${r.shown(key)}' names a .js/.ts file whose default export is ${what}.`);
    const value = moduleValue(await importModule(file, at), file, at, what);
    if (typeof value !== 'function' || isAgentClass(value))
      r.fail(key, `the default export of ${displayPath(file)} is not a function; export ${what}.`);
    return { value: value as ModuleFunction, file };
  }
}

function readCommon(r: MapReader, defaultName: string | undefined): DefinitionCommon {
  const written = r.word('name', 'Assistant');
  // Agent names are identifiers; a definition may write a label such as `test-team-agent` (as AIGNE's do): it becomes `test_team_agent`.
  const name =
    (written === undefined ? undefined : toIdentifier(written)) ??
    defaultName ??
    r.fail(
      'name',
      `'${r.shown('name')}' is required in an inline definition: a JavaScript identifier unique in the tree, e.g. 'name: Researcher'.`,
    );
  try {
    assertValidAgentName(name);
  } catch (error) {
    const source = r.has('name') ? '' : ` (taken from the file name; set '${r.shown('name')}' to choose another)`;
    r.fail('name', `${(error as Error).message}${source}`, error);
  }
  const at = r.has('name')
    ? r.at('name')
    : { file: r.node.file, line: r.node.line, key: r.keyPrefix ? r.keyPrefix.slice(0, -1) : undefined };
  return { name, description: r.string('description', 'What the agent does.'), at };
}

/** The types other than `type` that accept `key`, for "it belongs to loop agents". */
function ownersOf(key: string, type: AgentType): string | undefined {
  const owners = AGENT_TYPES.filter((t) => t !== type && (AGENT_KEYS[t] as readonly string[]).includes(key));
  if (owners.length === 0) return undefined;
  return `${owners.join(', ').replace(/, ([^,]*)$/, ' and $1')} agents`;
}
