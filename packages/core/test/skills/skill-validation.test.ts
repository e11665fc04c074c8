import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, LlmAgent, SkillToolset } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';
import { configurationError, fixture, sessionFor } from './helpers.js';

/** The SKILL.md of a bad fixture, as error messages show it (relative to the working directory). */
const shown = (path: string): string => relative(process.cwd(), fixture(path));

describe('SkillToolset: reading and checking SKILL.md', () => {
  it('reads a folder of skills and a single skill folder, with their frontmatter', async () => {
    const toolset = new SkillToolset({ dirs: [fixture('good'), fixture('one-skill/release-notes')] });
    const skills = await toolset.skills();
    expect(skills.map((s) => s.name)).toEqual(['csv-summary', 'haiku', 'release-notes']);
    expect(skills[0]).toMatchObject({
      name: 'csv-summary',
      description:
        'Summarizes a CSV file: counts its rows and columns. Use it when the user asks what a CSV file contains.',
      license: 'Apache-2.0',
      compatibility: 'Needs Node.js 20 or later.',
      metadata: { author: 'troupe', version: '1' },
      allowedTools: ['run_skill_script', 'load_skill_resource'],
      dir: fixture('good/csv-summary'),
      file: fixture('good/csv-summary/SKILL.md'),
    });
    expect(skills[0]!.instructions).toMatch(/^# CSV summary\n\n1\. Read `references\/format\.md`/);
    expect(skills[2]!.instructions).toBe('Group the changes by kind (features, fixes), one line each, newest first.');
  });

  const cases: [string, string, number, RegExp][] = [
    ['no-frontmatter', 'plain', 1, /must start with YAML frontmatter between '---' lines/],
    ['unclosed', 'unclosed', 1, /opened by '---' on line 1 is never closed/],
    ['missing-name', 'missing-name', 1, /has no 'name'.*Add 'name: missing-name'/],
    [
      'missing-description',
      'missing-description',
      1,
      /has no 'description' \(the key 'descripton' on line 3 looks like a misspelling of it\)/,
    ],
    ['bad-name', 'Bad_Name', 3, /'name' is "Bad_Name": a skill name is 1-64 lowercase letters.*\(e\.g\. "bad-name"\)/],
    ['double-hyphen', 'double--hyphen', 2, /'name' is "double--hyphen".*no '--'.*\(e\.g\. "double-hyphen"\)/],
    ['name-mismatch', 'folder-name', 2, /'name' is 'other-name' but the skill's folder is named 'folder-name'/],
    ['invalid-yaml', 'invalid-yaml', 3, /the frontmatter is not valid YAML/],
    ['long-description', 'long-description', 3, /'description' is 1025 characters long; .* at most 1024/],
    ['bad-metadata', 'bad-metadata', 5, /'metadata\.tags' must be a string; got a list/],
  ];
  it.each(cases)('refuses %s with the file and line', async (folder, skill, line, problem) => {
    const error = await configurationError(new SkillToolset({ dirs: [fixture(`bad/${folder}`)] }).skills());
    expect(error.message.startsWith(`${shown(`bad/${folder}/${skill}/SKILL.md`)}:${line}: `)).toBe(true);
    expect(error.message).toMatch(problem);
  });

  it('refuses a name used twice across folders, naming both files', async () => {
    const error = await configurationError(new SkillToolset({ dirs: [fixture('dup-a'), fixture('dup-b')] }).skills());
    expect(error.message).toBe(
      `${shown('dup-b/shared/SKILL.md')}:3: the skill name 'shared' is also used by ${shown('dup-a/shared/SKILL.md')}:2. Skill names must be unique across a SkillToolset's folders: rename one skill (and its folder), or leave one folder out.`,
    );
  });

  it('refuses a missing folder, a subfolder without SKILL.md and a folder with no skills', async () => {
    const missing = await configurationError(new SkillToolset({ dirs: fixture('nowhere') }).skills());
    expect(missing.message).toMatch(/the skills folder '.*nowhere' does not exist/);
    const noSkillMd = await configurationError(new SkillToolset({ dirs: fixture('bad/no-skill-md') }).skills());
    expect(noSkillMd.message).toMatch(/the folder '.*no-skill-md\/notes' .* has no SKILL\.md/);
    const empty = await configurationError(new SkillToolset({ dirs: fixture('bad/empty') }).skills());
    expect(empty.message).toMatch(/the skills folder '.*bad\/empty' holds no skills/);
  });

  it('reads the folders again after a failed read, so a fixed SKILL.md works without a new toolset', async () => {
    const dir = tempDir('troupe-skills-');
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'SKILL.md'), '---\nname: Notes\ndescription: Takes notes.\n---\nBe brief.\n');
    const toolset = new SkillToolset({ dirs: dir });
    expect((await configurationError(toolset.skills())).message).toMatch(/SKILL\.md:2: 'name' is "Notes"/);
    writeFileSync(join(dir, 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Takes notes.\n---\nBe brief.\n');
    expect((await toolset.skills()).map((s) => s.instructions)).toEqual(['Be brief.']);
  });

  it('checks its options in the constructor', () => {
    expect(() => new SkillToolset({ dirs: [] })).toThrow(ConfigurationError);
    expect(() => new SkillToolset({ dirs: [] })).toThrow(/'dirs' must be a folder path or a non-empty list/);
    expect(() => new SkillToolset({ dirs: './skills', executor: {} as never })).toThrow(
      /'executor' must be a CodeExecutor/,
    );
  });

  it('an invalid SKILL.md fails the run that first needs the tools, with the file and line', async () => {
    const model = new ScriptedModel(['never asked']);
    const toolset = new SkillToolset({ dirs: fixture('bad/name-mismatch') });
    const agent = new LlmAgent({ name: 'assistant', model, tools: [toolset] });
    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'hi' });
    expect(result.status).toBe('failed');
    const error = result.error;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error!.message).toContain(`${shown('bad/name-mismatch/folder-name/SKILL.md')}:2:`);
    expect(model.callCount).toBe(0);
  });
});
