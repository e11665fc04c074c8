import type { CodeExecutor } from '../code-execution/code-executor.js';
import { runCodeWithApproval } from '../code-execution/run-code-with-approval.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { JsonSchema } from '../utils/schema.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { findSkill, withSkillNames, type SkillSource } from './skill-catalog.js';
import { prepareScript, SKILLS_IN_WORKSPACE } from './skill-script.js';

// JSON Schema, not zod: importing @troupe/core does not load zod for these tools.
const parameters: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The name of the skill.' },
    script: {
      type: 'string',
      description: "The script's path under the skill's scripts/ folder, e.g. 'summary.py'.",
    },
    args: {
      description: 'Arguments for the script, e.g. file names in the working folder.',
      type: 'array',
      items: { type: 'string' },
    },
    input_files: {
      description:
        "Artifacts of this conversation (e.g. files the user sent) to place in the working folder by name first, e.g. ['sales.csv'].",
      type: 'array',
      items: { type: 'string' },
    },
  },
  required: ['name', 'script'],
  additionalProperties: false,
};

/** The arguments `parameters` describes. */
interface RunSkillScriptArgs {
  name: string;
  script: string;
  args?: string[];
  input_files?: string[];
}

/**
 * `run_skill_script({ name, script, args?, input_files? })`: runs a file under a skill's `scripts/` folder through
 * the toolset's {@link CodeExecutor} (`.py` python, `.js`/`.mjs` node as an ES module, `.sh` bash). The run's
 * working folder is the session's; the skill's files are placed in it under `skills/<name>/` first.
 * Running is the same confirmation interrupt as `execute_code` (the card shows the script's code)
 * unless the agent has `allowCodeExecution: true`; a rejected script never runs.
 */
export class RunSkillScriptTool extends FunctionTool<JsonSchema> {
  constructor(
    private readonly source: SkillSource,
    executor: CodeExecutor,
  ) {
    super({
      name: 'run_skill_script',
      description: `Runs a script of a skill (a file in its scripts/ folder) with arguments and returns its exit code, output and the files it wrote. It runs in the session's working folder, where the skill's files are at ${SKILLS_IN_WORKSPACE}/<skill name>/.`,
      parameters,
      execute: async (call, ctx) => {
        const { name, script, args, input_files: inputFiles } = call as unknown as RunSkillScriptArgs;
        const skill = await findSkill(source, name);
        const prepared = await prepareScript(skill, script, executor);
        const shownArgs = args && args.length > 0 ? ` with ${JSON.stringify(args)}` : '';
        return runCodeWithApproval(
          ctx,
          executor,
          {
            language: prepared.language,
            code: prepared.code,
            args: args ?? [],
            files: prepared.files,
            ...(inputFiles ? { inputArtifacts: inputFiles } : {}),
          },
          { hint: `Run ${prepared.path} of skill '${skill.name}'${shownArgs}?` },
        );
      },
    });
  }

  /** The declaration, its `name` limited to the toolset's skills. */
  override getDeclaration(): Promise<FunctionDeclaration> {
    return withSkillNames(super.getDeclaration(), this.source);
  }
}
