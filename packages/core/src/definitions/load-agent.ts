import type { BaseAgent } from '../agents/base-agent.js';
import type { BaseLlm } from '../models/base-llm.js';

export { AgentDefinitionError, type DefinitionLocation } from './definition-error.js';

/** Options of {@link loadAgent}. */
export interface LoadAgentOptions {
  /**
   * The model of LlmAgents that name none and inherit none from an ancestor LlmAgent: a model
   * string (resolved like `model:` values) or an instance. Unset: such agents use the Runner's default.
   */
  model?: string | BaseLlm;
  /** Instances for the names used in `model:` and `fallback_models:` values; other names resolve through the model registry. */
  models?: Readonly<Record<string, BaseLlm>>;
}

/** The file names looked for, in order, when {@link loadAgent} is given a directory. */
export const AGENT_DEFINITION_FILE_NAMES: readonly string[] = ['agent.yaml', 'agent.yml', 'agent.json'];

/**
 * Loads an agent from a YAML or JSON definition file (or a directory holding `agent.yaml`,
 * `agent.yml` or `agent.json`), with the files and modules it names. Everything is read and checked
 * first and agents are constructed only when all of it is valid, so a failure anywhere throws an
 * {@link AgentDefinitionError} (naming the file, the line, the key and the fix) and nothing
 * half-built escapes. A `.js`/`.ts` module path is accepted too: its default export is the agent.
 *
 * Keys may be written in camelCase, snake_case or kebab-case. `type` is `llm` (the default),
 * `sequential`, `parallel`, `loop`, `routed`, `team`, `function`, a prebuilt pattern (`supervisor`,
 * `plan_execute`, `group_chat`; docs/patterns.md), or the path of a module exporting an agent (or an
 * agent class). `sub_agents`, `skills`, `tools`, `reviewer` and routed `agents`
 * entries are paths relative to the file, or inline definitions. TypeScript modules need a loader
 * such as tsx (the `troupe` CLI registers it).
 *
 * @example
 * // team.yaml:
 * //   type: team
 * //   name: Writers
 * //   skills: [./research.yaml, ./summarize.js]
 * const team = await loadAgent('agents/team.yaml', { model: 'gemini-2.5-flash' });
 * const runner = new InMemoryRunner({ agent: team });
 */
export async function loadAgent(path: string, options: LoadAgentOptions = {}): Promise<BaseAgent> {
  // The loader's code and the yaml parser load on first use, so importing @troupe/core stays cheap.
  const [{ LoadContext, checkModelOptions }, { DefinitionCompiler }, { checkPlan, buildPlan }, { resolveRootFile }] =
    await Promise.all([
      import('./load-context.js'),
      import('./build-agent.js'),
      import('./agent-plan.js'),
      import('./load-module.js'),
    ]);
  const models = checkModelOptions(options.model, options.models);
  const { file, kind } = await resolveRootFile(path, AGENT_DEFINITION_FILE_NAMES);
  const compiler = new DefinitionCompiler(new LoadContext(models, options.model));
  const plan =
    kind === 'definition' ? await compiler.file(file, undefined, undefined) : await compiler.module(file, { file });
  checkPlan(plan);
  return buildPlan(plan);
}
