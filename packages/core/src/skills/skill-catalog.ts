import type { FunctionDeclaration } from '../models/llm-request.js';
import { ToolArgumentsError } from '../tools/function-tool.js';
import type { AgentSkill } from './agent-skill.js';

/** Where a toolset's tools get its skills: loaded once, on first use. */
export type SkillSource = () => Promise<ReadonlyMap<string, AgentSkill>>;

/** The skill named `name`, or a {@link ToolArgumentsError} listing the skills there are (the model reads it). */
export async function findSkill(source: SkillSource, name: unknown): Promise<AgentSkill> {
  const skills = await source();
  const skill = typeof name === 'string' ? skills.get(name) : undefined;
  if (skill) return skill;
  throw new ToolArgumentsError(
    `There is no skill named ${JSON.stringify(name)}. Use one of: ${[...skills.keys()].map((n) => `'${n}'`).join(', ')}.`,
  );
}

/**
 * The paragraph added to the system instruction: how skills are used, then one line per skill
 * (`- name: description`). Descriptions are put on one line each, so a skill costs one line.
 */
export function skillCatalogText(skills: Iterable<AgentSkill>, canRunScripts: boolean): string {
  const lines = [...skills].map((skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ').trim()}`);
  const scripts = canRunScripts ? ' and `run_skill_script` runs one of its scripts' : '';
  return [
    'You have skills: packaged instructions and files for particular tasks. When a task matches a skill below, call `load_skill` with its name and follow the instructions it returns before doing the task yourself; `load_skill_resource` reads a file the instructions mention' +
      `${scripts}. Do not guess a skill's instructions without loading it.`,
    'Available skills:',
    ...lines,
  ].join('\n');
}

/**
 * A tool's declaration with its `name` parameter limited to the skills there are (an `enum`), so a
 * model picks a real skill instead of guessing one (providers with constrained decoding enforce it).
 */
export async function withSkillNames(
  declaration: Promise<FunctionDeclaration>,
  source: SkillSource,
): Promise<FunctionDeclaration> {
  const [declared, skills] = await Promise.all([declaration, source()]);
  const parameters = declared.parameters as { properties?: Record<string, Record<string, unknown>> } | undefined;
  const name = parameters?.properties?.name;
  if (!name) return declared;
  return {
    ...declared,
    parameters: {
      ...parameters,
      properties: { ...parameters.properties, name: { ...name, enum: [...skills.keys()] } },
    },
  };
}
