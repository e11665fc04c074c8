import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { CodeExecutor, CodeFile, CodeLanguage } from '../code-execution/code-executor.js';
import { ToolArgumentsError } from '../tools/function-tool.js';
import type { AgentSkill } from './agent-skill.js';
import { listSkillFiles, resolveSkillFile } from './skill-files.js';

/** The folder of a skill's scripts, and where its files are placed in the working folder. */
export const SCRIPTS_FOLDER = 'scripts';
/** Skill files go to `skills/<name>/` in the run's working folder, beside the session's own files. */
export const SKILLS_IN_WORKSPACE = 'skills';

const LANGUAGES: Readonly<Record<string, CodeLanguage>> = {
  '.py': 'python',
  '.js': 'node',
  '.mjs': 'node',
  '.sh': 'bash',
};

/** A script ready to run: its language, its source and the skill's files for the working folder. */
export interface PreparedScript {
  /** The script's path in the skill's folder (`scripts/summary.py`). */
  readonly path: string;
  readonly language: CodeLanguage;
  readonly code: string;
  readonly files: CodeFile[];
}

/**
 * Finds a script of the skill (`summary.py` or `scripts/summary.py`, under the skill's `scripts/`
 * folder), picks its language by extension, reads it and the skill's files. Errors name the
 * script: outside `scripts/`, an unknown extension, a language the executor cannot run.
 */
export async function prepareScript(
  skill: AgentSkill,
  script: string,
  executor: CodeExecutor,
): Promise<PreparedScript> {
  const refuse = (problem: string): never => {
    throw new ToolArgumentsError(`The script ${JSON.stringify(script)} of skill '${skill.name}' ${problem}`);
  };
  const normalized = script.replace(/\\/g, '/').replace(/^\.\//, '');
  // A path that is absolute or climbs is passed on as written, for resolveSkillFile to refuse by its own name.
  const asWritten =
    normalized.startsWith(`${SCRIPTS_FOLDER}/`) ||
    /^[A-Za-z]:|^\//.test(normalized) ||
    normalized.split('/').includes('..');
  const path = asWritten ? normalized : `${SCRIPTS_FOLDER}/${normalized}`;
  const file = await resolveSkillFile(skill, path, 'script');
  const extension = extname(path).toLowerCase();
  const language = Object.hasOwn(LANGUAGES, extension) ? LANGUAGES[extension] : undefined;
  if (language === undefined) {
    refuse(`has no runnable extension. Scripts run by extension: ${Object.keys(LANGUAGES).join(', ')}.`);
  }
  if (!executor.languages.includes(language!)) {
    refuse(`is ${language} code, which this executor does not run (it runs ${executor.languages.join(', ')}).`);
  }
  const files: CodeFile[] = [];
  for (const resource of (await listSkillFiles(skill)).paths) {
    files.push({
      path: `${SKILLS_IN_WORKSPACE}/${skill.name}/${resource}`,
      content: await readFile(await resolveSkillFile(skill, resource)),
    });
  }
  return { path, language: language!, code: await readFile(file, 'utf8'), files };
}
