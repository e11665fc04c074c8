import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ToolEntryContext } from '../definitions/tool-entries.js';
import { SkillToolset } from './skill-toolset.js';

/**
 * The `tools: [{ skills: ./skills }]` entry of agent definitions (also `{ skills: [./a, ./b] }`):
 * a {@link SkillToolset} over the folders, relative to the definition file. A folder that is missing
 * is reported at the entry's line; the `SKILL.md` files are checked when the agent first runs.
 */
export function skillsToolEntry(spec: unknown, ctx: ToolEntryContext): SkillToolset {
  const paths = typeof spec === 'string' ? [spec] : spec;
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((path) => typeof path === 'string' && path !== '')) {
    throw new Error(
      `a skills entry is a folder path or a list of them, relative to this file (e.g. '{ skills: ./skills }' or '{ skills: [./skills, ../shared-skills] }'); got ${JSON.stringify(spec)}.`,
    );
  }
  const dirs = (paths as string[]).map((path) => {
    const dir = resolve(ctx.dir, path);
    const info = statSync(dir, { throwIfNoEntry: false });
    if (!info?.isDirectory()) {
      throw new Error(
        `the skills folder '${path}' (${dir}) ${info ? 'is not a folder' : 'does not exist'}. Give a folder of skill folders, or one skill folder, relative to this file.`,
      );
    }
    return dir;
  });
  return new SkillToolset({ dirs });
}
