import { BaseAgent } from '../agents/base-agent.js';
import type { BaseTool } from '../tools/base-tool.js';
import type { BaseToolset } from '../tools/base-toolset.js';
import { AgentDefinitionError, whereText, type DefinitionLocation } from './definition-error.js';
import type { LoadContext } from './load-context.js';
import type { ListItem, MapReader } from './read-values.js';

/** Where a definition is being read. */
export interface Scope {
  /** The file the definition is in; paths in it are relative to its folder. */
  readonly file: string;
  /** The definition files being read, outermost first (for cycle detection). */
  readonly chain: readonly string[];
  /** An ancestor LlmAgent in the same tree has a model, so an LlmAgent without one inherits it. */
  readonly inheritsModel: boolean;
}

/** Reads an entry of `sub_agents`, `skills`, `reviewer`, `agents`, or an AgentTool's `agent`. */
export interface Compiler {
  readonly ctx: LoadContext;
  agentEntry(item: ListItem, scope: Scope): Promise<AgentPlan>;
  /** The agent of a definition file, named at `at`. */
  file(file: string, at: DefinitionLocation | undefined, parent: Scope | undefined): Promise<AgentPlan>;
  /** One agent definition, inline; `defaultName` names it when it has no `name:` (a workflow's node key). */
  definition(r: MapReader, scope: Scope, defaultName: string | undefined): Promise<AgentPlan>;
}

/** Builds the agent of a plan; passed to {@link AgentPlan.create} for its children. */
export type BuildAgent = (plan: AgentPlan) => BaseAgent;

/**
 * An agent that has been read and validated but not constructed yet. Every file of a definition is
 * turned into plans first; agents are constructed only once the whole tree checked out, so a
 * failure anywhere leaves nothing half-built.
 */
export interface AgentPlan {
  /** Where the agent is defined (or, for a module's agent, where the module is named). */
  readonly at: DefinitionLocation;
  readonly name: string;
  /** Agents placed under this one, in the same tree (sub-agents, skills, reviewer, routed agents). */
  readonly children: readonly AgentPlan[];
  /** Agents wrapped in an AgentTool: each is the root of a tree of its own. */
  readonly toolAgents: readonly AgentPlan[];
  /** A ready-made agent exported by a module. */
  readonly instance?: BaseAgent;
  /** Constructs the agent, building children with `build`. */
  create(build: BuildAgent): BaseAgent;
}

/** A tool (or toolset) that has been read and validated but not constructed yet. */
export interface ToolPlan {
  readonly at: DefinitionLocation;
  /** The tool's name; undefined for a toolset, whose tools are known only once it runs. */
  readonly name: string | undefined;
  /** The agent of an AgentTool. */
  readonly agent?: AgentPlan;
  create(build: BuildAgent): BaseTool | BaseToolset;
}

/** A plan for an agent a module exported ready-made. */
export function instancePlan(agent: BaseAgent, at: DefinitionLocation): AgentPlan {
  return { at, name: agent.name, children: [], toolAgents: [], instance: agent, create: () => agent };
}

/**
 * Checks what the agent constructors would reject, before any is called: a name used twice in one
 * tree, and a module's ready-made agent that already has a parent or is placed twice.
 */
export function checkPlan(root: AgentPlan): void {
  const placed = new Map<BaseAgent, DefinitionLocation>();
  const checkTree = (treeRoot: AgentPlan): void => {
    const names = new Map<string, DefinitionLocation>();
    const claim = (name: string, at: DefinitionLocation): void => {
      const earlier = names.get(name);
      if (earlier) {
        throw new AgentDefinitionError(
          at,
          `the agent name '${name}' is already used in this agent tree (at ${whereText(earlier)}). Names must be unique in a tree, so that transfers and events can tell agents apart: rename one of them.`,
        );
      }
      names.set(name, at);
    };
    const visit = (plan: AgentPlan, isChild: boolean): void => {
      if (plan.instance) {
        if (isChild) checkPlaceable(plan.instance, plan.at, placed);
        forEachInTree(plan.instance, (agent) => claim(agent.name, plan.at));
      } else {
        claim(plan.name, plan.at);
      }
      for (const child of plan.children) visit(child, true);
      for (const toolAgent of plan.toolAgents) checkTree(toolAgent);
    };
    visit(treeRoot, false);
  };
  checkTree(root);
}

/**
 * Constructs the agents of a checked plan, children first. A constructor's error is reported at
 * the definition it came from.
 */
export function buildPlan(root: AgentPlan): BaseAgent {
  const build: BuildAgent = (plan) => {
    try {
      return plan.create(build);
    } catch (error) {
      if (error instanceof AgentDefinitionError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new AgentDefinitionError(plan.at, reason, { cause: error });
    }
  };
  return build(root);
}

function checkPlaceable(agent: BaseAgent, at: DefinitionLocation, placed: Map<BaseAgent, DefinitionLocation>): void {
  const parent = agent.parentAgent;
  if (parent) {
    throw new AgentDefinitionError(
      at,
      `the module's agent '${agent.name}' already belongs to agent '${parent.name}' (an agent has one parent; an earlier load or another tree took it). Export a function instead (it becomes a new FunctionAgent each time), or define the agent in YAML.`,
    );
  }
  const earlier = placed.get(agent);
  if (earlier) {
    throw new AgentDefinitionError(
      at,
      `the module's agent '${agent.name}' is placed a second time (first at ${whereText(earlier)}); an agent has one parent. Reference it once, or define a second agent.`,
    );
  }
  placed.set(agent, at);
}

function forEachInTree(agent: BaseAgent, visit: (agent: BaseAgent) => void): void {
  visit(agent);
  for (const child of agent.subAgents) forEachInTree(child, visit);
}

/** True for a class whose instances are agents (a custom agent type). */
export function isAgentClass(value: unknown): value is new (options: Record<string, unknown>) => BaseAgent {
  return typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof BaseAgent;
}
