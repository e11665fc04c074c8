import { describe, expect, it } from 'vitest';
import { LlmAgent, SkillToolset, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture, responseOf, sessionFor } from './helpers.js';

const BODY = 'Run `scripts/count-rows.mjs <file>` to count the rows.';
const REFERENCE = 'Answer with one line: `<rows> rows, <columns> columns`.';

/** Everything the model received in a request: instruction and contents. */
const seen = (request: LlmRequest): string =>
  `${request.config.systemInstruction ?? ''}\n${JSON.stringify(request.contents)}`;

describe('SkillToolset: progressive disclosure', () => {
  it.each(['default', 'none'] as const)(
    'lists skills in the instruction; a skill body enters the request after load_skill and stays for the invocation (includeContents %s)',
    async (includeContents) => {
      const model = new ScriptedModel([
        { functionCalls: [{ name: 'load_skill', args: { name: 'csv-summary' } }] },
        {
          functionCalls: [{ name: 'load_skill_resource', args: { name: 'csv-summary', path: 'references/format.md' } }],
        },
        '3 rows, 2 columns',
      ]);
      const agent = new LlmAgent({
        name: 'analyst',
        model,
        instruction: 'Help with data.',
        includeContents,
        tools: [new SkillToolset({ dirs: fixture('good') })],
      });
      const { runner, sessionId } = await sessionFor(agent);
      const result = await runner.run({ userId: 'u', sessionId, newMessage: 'What is in data.csv?' });
      expect(result.status).toBe('completed');
      const [first, second, third] = model.requests as [LlmRequest, LlmRequest, LlmRequest];

      const instruction = first.config.systemInstruction ?? '';
      expect(instruction.startsWith('Help with data.\n\nYou have skills:')).toBe(true);
      expect(instruction).toContain('call `load_skill` with its name');
      expect(instruction).toContain(
        '\nAvailable skills:\n- csv-summary: Summarizes a CSV file: counts its rows and columns. Use it when the user asks what a CSV file contains.\n- haiku: Writes a haiku (5-7-5 syllables) about a topic the user gives.',
      );
      expect(first.config.tools?.map((t) => t.name)).toEqual(['list_skills', 'load_skill', 'load_skill_resource']);
      // A skill's name is one of the skills there are: a model cannot ask for one that does not exist.
      for (const tool of first.config.tools!.slice(1)) {
        expect((tool.parameters as { properties: Record<string, { enum?: string[] }> }).properties.name!.enum).toEqual([
          'csv-summary',
          'haiku',
        ]);
      }

      expect(seen(first)).not.toContain(BODY);
      expect(seen(second)).toContain(BODY);
      expect(seen(second)).not.toContain(REFERENCE);
      expect(seen(third)).toContain(BODY);
      expect(seen(third)).toContain(REFERENCE);
      // The list stays one line per skill in every request; the body never moves into the instruction.
      expect(third.config.systemInstruction).toBe(instruction);

      expect(responseOf(result.events, 'load_skill')).toEqual({
        name: 'csv-summary',
        instructions: expect.stringContaining(BODY) as string,
        resources: [
          'assets/logo.png',
          'assets/sample.csv',
          'references/format.md',
          'scripts/append-mark.sh',
          'scripts/count-rows.mjs',
          'scripts/notes.txt',
        ],
      });
      model.assertDone();
    },
  );

  it('list_skills answers the name and description of each skill', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'list_skills' }] }, 'ok']);
    const toolset = new SkillToolset({ dirs: [fixture('good'), fixture('one-skill/release-notes')] });
    const agent = new LlmAgent({ name: 'assistant', model, tools: [toolset] });
    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'what can you do?' });
    expect(responseOf(result.events, 'list_skills')).toEqual({
      skills: [
        {
          name: 'csv-summary',
          description:
            'Summarizes a CSV file: counts its rows and columns. Use it when the user asks what a CSV file contains.',
        },
        { name: 'haiku', description: 'Writes a haiku (5-7-5 syllables) about a topic the user gives.' },
        { name: 'release-notes', description: 'Writes release notes from a list of merged changes.' },
      ],
    });
  });

  it('load_skill with an unknown name tells the model the names there are', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'load_skill', args: { name: 'csv' } }] }, 'ok']);
    const agent = new LlmAgent({ name: 'assistant', model, tools: [new SkillToolset({ dirs: fixture('good') })] });
    const { runner, sessionId } = await sessionFor(agent);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'hi' });
    expect(responseOf(result.events, 'load_skill')).toEqual({
      error: `There is no skill named "csv". Use one of: 'csv-summary', 'haiku'.`,
    });
  });
});
