import { FunctionTool } from '../tools/function-tool.js';
import type { JsonSchema } from '../utils/schema.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { findSkill, withSkillNames, type SkillSource } from './skill-catalog.js';
import { listSkillFiles, MAX_LISTED_FILES } from './skill-files.js';

/**
 * `load_skill({ name })`: the skill's instructions (the body of its `SKILL.md`) and the paths of its
 * other files. The answer is the call's function response, so the instructions enter the next model
 * request and stay in the history for the rest of the invocation (and the session).
 */
// JSON Schema, not zod: importing @troupe/core does not load zod (a tenth of a second) for these tools.
const parameters: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The name of the skill, as listed in your instructions.' } },
  required: ['name'],
  additionalProperties: false,
};

export class LoadSkillTool extends FunctionTool<JsonSchema> {
  constructor(private readonly source: SkillSource) {
    super({
      name: 'load_skill',
      description:
        "Loads a skill: returns its instructions and the paths of its files (scripts, references, assets). Call it before doing a task that matches the skill's description.",
      parameters,
      execute: async (args) => {
        const { name } = args as { name: string };
        const skill = await findSkill(source, name);
        const { paths, more } = await listSkillFiles(skill);
        return {
          name: skill.name,
          instructions: skill.instructions,
          resources: paths,
          ...(more ? { note: `Only the first ${MAX_LISTED_FILES} files are listed.` } : {}),
        };
      },
    });
  }

  /** The declaration, its `name` limited to the toolset's skills. */
  override getDeclaration(): Promise<FunctionDeclaration> {
    return withSkillNames(super.getDeclaration(), this.source);
  }
}
