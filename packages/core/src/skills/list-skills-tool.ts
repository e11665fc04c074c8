import type { CallbackContext } from '../agents/callback-context.js';
import type { LlmRequest } from '../models/llm-request.js';
import { appendInstruction } from '../tools/append-instruction.js';
import { FunctionTool } from '../tools/function-tool.js';
import { skillCatalogText, type SkillSource } from './skill-catalog.js';

/**
 * `list_skills`: the name and description of each skill. Before each model request it also adds
 * the skill list to the system instruction (a line per skill), so the model knows the skills
 * without a call: the skills' instructions stay out of the request until `load_skill` is called
 * (progressive disclosure).
 */
export class ListSkillsTool extends FunctionTool {
  constructor(
    private readonly source: SkillSource,
    private readonly canRunScripts: boolean,
  ) {
    super({
      name: 'list_skills',
      description: 'Lists the skills you can load: the name and description of each.',
      execute: async () => ({
        skills: [...(await source()).values()].map(({ name, description }) => ({ name, description })),
      }),
    });
  }

  override async processRequest({ request }: { context: CallbackContext; request: LlmRequest }): Promise<void> {
    appendInstruction(request, skillCatalogText((await this.source()).values(), this.canRunScripts));
  }
}
