import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { commonOptions, readAgentList, readModel, type DefinitionCommon } from './build-common.js';
import { compileTools } from './build-tools.js';
import type { MapReader } from './read-values.js';

/** The keys of `type: supervisor` besides type, name and description. */
export const SUPERVISOR_KEYS = ['model', 'instruction', 'subAgents', 'tools', 'maxDelegations', 'outputKey'] as const;

/**
 * Reads a `type: supervisor` definition: `model` (or the inherited/default model), `instruction`,
 * `sub_agents` (the workers, each a path or an inline definition), optional `tools`,
 * `max_delegations` and `output_key`. The pattern's module is imported only here, when a definition
 * uses it, so `@troupe/core` stays light.
 */
export async function compileSupervisor(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const { SupervisorAgent } = await import('../patterns/supervisor.js');
  const model = readModel(compiler, r, scope, common);
  const instruction = r.string('instruction', 'Delegate research to Searcher, then answer.');
  const maxDelegations = r.integer('maxDelegations', 1, 10);
  const outputKey = r.word('outputKey', 'answer');
  r.require('subAgents', 'the worker agents the supervisor delegates to', '[./searcher.yaml, ./writer.yaml]');
  // Workers run as agent tools: each is the root of a tree of its own, inheriting no model.
  const workers = await readAgentList(compiler, r, 'subAgents', { ...scope, inheritsModel: false });
  if (workers.length === 0)
    r.fail(
      'subAgents',
      `'${r.shown('subAgents')}' is empty; a supervisor needs at least one worker agent to delegate to.`,
    );
  const seen = new Set<string>();
  for (const worker of workers) {
    if (seen.has(worker.name))
      r.fail(
        'subAgents',
        `'${r.shown('subAgents')}' has two agents named '${worker.name}'; the supervisor delegates by name, so give each worker a unique name.`,
      );
    seen.add(worker.name);
  }
  const tools = await compileTools(compiler, r.list('tools', '[./get-weather.js]') ?? [], scope);
  return {
    at: common.at,
    name: common.name,
    children: [],
    toolAgents: [...workers, ...tools.flatMap((tool) => (tool.agent ? [tool.agent] : []))],
    create: (build) =>
      new SupervisorAgent({
        ...commonOptions(common),
        model,
        instruction,
        maxDelegations,
        outputKey,
        subAgents: workers.map(build),
        tools: tools.map((tool) => tool.create(build)),
      }),
  };
}
