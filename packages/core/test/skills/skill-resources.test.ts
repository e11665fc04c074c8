import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LlmAgent, SkillToolset, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';
import { fixture, sessionFor } from './helpers.js';

/** Runs one model turn calling load_skill_resource with each path; answers the responses in order. */
async function loadResources(dirs: string, paths: string[]): Promise<Record<string, unknown>[]> {
  const model = new ScriptedModel([
    {
      functionCalls: paths.map((path, i) => ({
        name: 'load_skill_resource',
        args: { name: 'csv-summary', path },
        id: `r${i}`,
      })),
    },
    'ok',
  ]);
  const agent = new LlmAgent({ name: 'reader', model, tools: [new SkillToolset({ dirs })] });
  const { runner, sessionId } = await sessionFor(agent);
  const result = await runner.run({ userId: 'u', sessionId, newMessage: 'read' });
  const byId = new Map(result.events.flatMap(getFunctionResponses).map((r) => [r.id, r.response]));
  return paths.map((_, i) => byId.get(`r${i}`)!);
}

describe('SkillToolset: load_skill_resource', () => {
  it('answers a text file as content and a binary file as a note with its type and size', async () => {
    const [text, binary] = await loadResources(fixture('good'), ['references/format.md', 'assets/logo.png']);
    expect(text).toEqual({
      path: 'references/format.md',
      content: '# Summary format\n\nAnswer with one line: `<rows> rows, <columns> columns`.\n',
    });
    expect(binary).toEqual({
      path: 'assets/logo.png',
      binary: true,
      mimeType: 'image/png',
      size: 16,
      note: 'This is a binary file (image/png, 16 bytes); it cannot be shown as text. Scripts of the skill can use it.',
    });
  });

  it('refuses paths that leave the skill folder, naming the path', async () => {
    const responses = await loadResources(fixture('good'), [
      '../haiku/SKILL.md',
      'references/../../haiku/SKILL.md',
      '/etc/passwd',
      'C:\\Windows\\win.ini',
      'references',
      'references/missing.md',
    ]);
    expect(responses.map((r) => r.error)).toEqual([
      `The resource path "../haiku/SKILL.md" of skill 'csv-summary' leaves the skill's folder ('..'). Use a path inside it, as load_skill lists them.`,
      `The resource path "references/../../haiku/SKILL.md" of skill 'csv-summary' leaves the skill's folder ('..'). Use a path inside it, as load_skill lists them.`,
      `The resource path "/etc/passwd" of skill 'csv-summary' is absolute. Use a path relative to the skill's folder, as load_skill lists them (e.g. 'references/guide.md').`,
      `The resource path "C:\\\\Windows\\\\win.ini" of skill 'csv-summary' is absolute. Use a path relative to the skill's folder, as load_skill lists them (e.g. 'references/guide.md').`,
      `The resource path "references" of skill 'csv-summary' is a folder, not a file. Use a file path listed by load_skill.`,
      `The resource path "references/missing.md" of skill 'csv-summary' does not exist. Call load_skill('csv-summary') for the list of its files.`,
    ]);
  });

  it('refuses a link that leads outside the skill folder, and leaves it out of the list', async () => {
    const root = tempDir('troupe-skills-');
    cpSync(fixture('good/csv-summary'), join(root, 'skills', 'csv-summary'), { recursive: true });
    writeFileSync(join(root, 'secret.txt'), 'not for the model');
    mkdirSync(join(root, 'skills', 'csv-summary', 'linked'));
    symlinkSync(join(root, 'secret.txt'), join(root, 'skills', 'csv-summary', 'references', 'secret.md'));
    symlinkSync(root, join(root, 'skills', 'csv-summary', 'linked', 'up'));
    // A link inside the folder is fine.
    symlinkSync('format.md', join(root, 'skills', 'csv-summary', 'references', 'alias.md'));

    const [outside, throughFolder, inside] = await loadResources(join(root, 'skills'), [
      'references/secret.md',
      'linked/up/secret.txt',
      'references/alias.md',
    ]);
    expect(outside).toEqual({
      error: `The resource path "references/secret.md" of skill 'csv-summary' is a link that leads outside the skill's folder; it cannot be read.`,
    });
    expect(throughFolder).toEqual({
      error: `The resource path "linked/up/secret.txt" of skill 'csv-summary' is a link that leads outside the skill's folder; it cannot be read.`,
    });
    expect(inside).toMatchObject({
      path: 'references/alias.md',
      content: expect.stringContaining('Summary format') as string,
    });

    const model = new ScriptedModel([{ functionCalls: [{ name: 'load_skill', args: { name: 'csv-summary' } }] }, 'ok']);
    const agent = new LlmAgent({ name: 'reader', model, tools: [new SkillToolset({ dirs: join(root, 'skills') })] });
    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'load' });
    const loaded = result.events.flatMap(getFunctionResponses)[0]!.response;
    expect(loaded.resources).toEqual([
      'assets/logo.png',
      'assets/sample.csv',
      'references/alias.md',
      'references/format.md',
      'scripts/append-mark.sh',
      'scripts/count-rows.mjs',
      'scripts/notes.txt',
    ]);
  });
});
