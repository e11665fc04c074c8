import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { commonOptions, type DefinitionCommon } from './build-common.js';
import { AgentDefinitionError } from './definition-error.js';
import type { MapReader } from './read-values.js';

/** The keys of `type: plan_execute` besides type, name and description. */
export const PLAN_EXECUTE_KEYS = ['planner', 'executor', 'replanner', 'maxIterations'] as const;

const PLAN_SCHEMA =
  '{ type: object, properties: { steps: { type: array, items: { type: string }, minItems: 1 } }, required: [steps] }';
const REPLAN_SCHEMA =
  '{ type: object, properties: { respond: { type: string }, steps: { type: array, items: { type: string } } } }';

/**
 * Reads a `type: plan_execute` definition: `planner`, `executor` and optional `replanner` are agent
 * entries (a path or an inline definition), `max_iterations` a whole number. The pattern's module is
 * imported only here, when a definition uses it, so `@troupe/core` stays light.
 */
export async function compilePlanExecute(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const { PlanExecuteAgent } = await import('../patterns/plan-execute.js');
  const plannerNode = r.require('planner', 'the agent that writes the plan as { steps: [...] }', './planner.yaml');
  const executorNode = r.require(
    'executor',
    'the agent that performs one step (usually with tools)',
    './executor.yaml',
  );
  const maxIterations = r.integer('maxIterations', 1, 10);
  const planner = await compiler.agentEntry({ node: plannerNode, at: r.at('planner') }, scope);
  const executor = await compiler.agentEntry({ node: executorNode, at: r.at('executor') }, scope);
  const replannerNode = r.value('replanner');
  const replanner =
    replannerNode === undefined
      ? undefined
      : await compiler.agentEntry({ node: replannerNode, at: r.at('replanner') }, scope);
  return {
    at: common.at,
    name: common.name,
    children: replanner ? [planner, executor, replanner] : [planner, executor],
    toolAgents: [],
    create: (build) => {
      const plannerAgent = build(planner);
      const replannerAgent = replanner && build(replanner);
      if (plannerAgent.outputSchema === undefined) {
        throw new AgentDefinitionError(
          r.at('planner'),
          `planner '${plannerAgent.name}' has no output_schema, so its plan cannot be checked. Give it 'output_schema: ${PLAN_SCHEMA}'.`,
        );
      }
      if (replannerAgent && replannerAgent.outputSchema === undefined) {
        throw new AgentDefinitionError(
          r.at('replanner'),
          `replanner '${replannerAgent.name}' has no output_schema, so its decision cannot be checked. Give it 'output_schema: ${REPLAN_SCHEMA}'.`,
        );
      }
      return new PlanExecuteAgent({
        ...commonOptions(common),
        planner: plannerAgent,
        executor: build(executor),
        ...(replannerAgent ? { replanner: replannerAgent } : {}),
        ...(maxIterations === undefined ? {} : { maxIterations }),
      });
    },
  };
}
