import { FunctionTool } from '../tools/function-tool.js';
import type { JsonSchema } from '../utils/schema.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { findSkill, withSkillNames, type SkillSource } from './skill-catalog.js';
import { readSkillResource, resolveSkillFile } from './skill-files.js';

/**
 * `load_skill_resource({ name, path })`: one file of a skill, by its path relative to the skill's
 * folder (as `load_skill` lists them). Text comes back as `content`; a binary file as a note with its
 * media type and size. Paths that leave the folder (`..`, absolute paths, links pointing outside)
 * are refused with an error naming the path.
 */
// JSON Schema, not zod: importing @troupe/core does not load zod for these tools.
const parameters: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The name of the skill.' },
    path: { type: 'string', description: "The file's path inside the skill's folder, e.g. 'references/guide.md'." },
  },
  required: ['name', 'path'],
  additionalProperties: false,
};

export class LoadSkillResourceTool extends FunctionTool<JsonSchema> {
  constructor(private readonly source: SkillSource) {
    super({
      name: 'load_skill_resource',
      description:
        "Reads a file of a skill (e.g. 'references/guide.md'), by its path relative to the skill's folder as load_skill lists it.",
      parameters,
      execute: async (args) => {
        const { name, path } = args as { name: string; path: string };
        const skill = await findSkill(source, name);
        return readSkillResource(await resolveSkillFile(skill, path), path);
      },
    });
  }

  /** The declaration, its `name` limited to the toolset's skills. */
  override getDeclaration(): Promise<FunctionDeclaration> {
    return withSkillNames(super.getDeclaration(), this.source);
  }
}
