import { z } from 'zod';
import type { CodeExecutor } from '../code-execution/code-executor.js';
import { runCodeWithApproval } from '../code-execution/run-code-with-approval.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { findSkill, withSkillNames, type SkillSource } from './skill-catalog.js';
import { prepareScript, SKILLS_IN_WORKSPACE } from './skill-script.js';

const parameters = z.object({
  name: z.string().describe('The name of the skill.'),
  script: z.string().describe("The script's path under the skill's scripts/ folder, e.g. 'summary.py'."),
  args: z.array(z.string()).optional().describe('Arguments for the script, e.g. file names in the working folder.'),
  input_files: z
    .array(z.string())
    .optional()
    .describe(
      "Artifacts of this conversation (e.g. files the user sent) to place in the working folder by name first, e.g. ['sales.csv'].",
    ),
});

/**
 * `run_skill_script({ name, script, args?, input_files? })`: runs a file under a skill's `scripts/` folder through
 * the toolset's {@link CodeExecutor} (`.py` python, `.js`/`.mjs` node as an ES module, `.sh` bash). The run's
 * working folder is the session's; the skill's files are placed in it under `skills/<name>/` first.
 * Running is the same confirmation interrupt as `execute_code` (the card shows the script's code)
 * unless the agent has `allowCodeExecution: true`; a rejected script never runs.
 */
export class RunSkillScriptTool extends FunctionTool<typeof parameters> {
  constructor(
    private readonly source: SkillSource,
    executor: CodeExecutor,
  ) {
    super({
      name: 'run_skill_script',
      description: `Runs a script of a skill (a file in its scripts/ folder) with arguments and returns its exit code, output and the files it wrote. It runs in the session's working folder, where the skill's files are at ${SKILLS_IN_WORKSPACE}/<skill name>/.`,
      parameters,
      execute: async ({ name, script, args, input_files: inputFiles }, ctx) => {
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
