import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, ConfigurationError, SkillToolset, loadAgent, type LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture, responseOf, sessionFor } from './helpers.js';

async function definitionError(path: string): Promise<AgentDefinitionError> {
  const error: unknown = await loadAgent(fixture(path), { model: new ScriptedModel([]) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

describe('SkillToolset in agent definitions: tools: [{ skills: <folder> }]', () => {
  it('a skills entry is a SkillToolset over the folder, relative to the YAML file, and runs', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'load_skill', args: { name: 'haiku' } }] }, 'ok']);
    const agent = (await loadAgent(fixture('yaml/analyst.yaml'), { model })) as LlmAgent;
    expect(agent.toolsets).toHaveLength(1);
    const toolset = agent.toolsets[0] as SkillToolset;
    expect(toolset).toBeInstanceOf(SkillToolset);
    expect(toolset.dirs).toEqual([fixture('good')]);

    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'a haiku about rain' });
    expect(model.requests[0]!.config.systemInstruction).toContain('- haiku: Writes a haiku');
    expect(responseOf(result.events, 'load_skill')).toMatchObject({
      name: 'haiku',
      instructions: 'Count syllables line by line before answering.',
    });
  });

  it('takes a list of folders', async () => {
    const agent = (await loadAgent(fixture('yaml/two-folders.yaml'), { model: new ScriptedModel([]) })) as LlmAgent;
    const toolset = agent.toolsets[0] as SkillToolset;
    expect(toolset.dirs).toEqual([fixture('good'), fixture('one-skill/release-notes')]);
    expect((await toolset.skills()).map((s) => s.name)).toEqual(['csv-summary', 'haiku', 'release-notes']);
  });

  it('a missing folder is reported at the entry: file, line and key', async () => {
    const error = await definitionError('yaml/missing-folder.yaml');
    expect(error.file).toBe(fixture('yaml/missing-folder.yaml'));
    expect(error.line).toBe(5);
    expect(error.key).toBe('tools[1].skills');
    expect(error.message).toContain(
      `the skills folder './no-such-skills' (${fixture('yaml/no-such-skills')}) does not exist.`,
    );
  });

  it('a value that is not a path or a list of paths is reported at the entry', async () => {
    const error = await definitionError('yaml/wrong-type.yaml');
    expect(error.line).toBe(3);
    expect(error.message).toContain(
      `a skills entry is a folder path or a list of them, relative to this file (e.g. '{ skills: ./skills }' or '{ skills: [./skills, ../shared-skills] }'); got {"folder":"../good"}.`,
    );
  });

  it('an invalid SKILL.md behind a YAML entry fails the first run, naming the SKILL.md and line', async () => {
    const agent = (await loadAgent(fixture('yaml/bad-skill.yaml'), { model: new ScriptedModel([]) })) as LlmAgent;
    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'hi' });
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect(result.error!.message).toMatch(
      new RegExp(
        `^${relative(process.cwd(), fixture('bad/name-mismatch/folder-name/SKILL.md'))}:2: 'name' is 'other-name'`,
      ),
    );
  });
});
