import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LlmAgent, LocalProcessExecutor, SkillToolset, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { tempDir } from '../temp-dir.js';
import { fixture, responseOf, sessionFor } from './helpers.js';

const MARK = { name: 'run_skill_script', args: { name: 'csv-summary', script: 'append-mark.sh', args: ['first'] } };

/** An agent whose skills run their scripts in a temporary root, and the file the mark script appends to. */
async function setup(replies: ConstructorParameters<typeof ScriptedModel>[0], allowCodeExecution = false) {
  const executor = new LocalProcessExecutor({ root: join(tempDir('troupe-skill-scripts-'), 'runs') });
  const model = new ScriptedModel(replies);
  const toolset = new SkillToolset({ dirs: fixture('good'), executor });
  const agent = new LlmAgent({ name: 'analyst', model, tools: [toolset], allowCodeExecution });
  const { runner, sessionId } = await sessionFor(agent);
  const folder = executor.workspacePath(`${runner.appName}/u/${sessionId}`);
  const runs = () => (existsSync(join(folder, 'runs.log')) ? readFileSync(join(folder, 'runs.log'), 'utf8') : '');
  return { model, runner, sessionId, folder, runs };
}

describe('SkillToolset: run_skill_script', () => {
  it('pauses for approval with the script as the payload; runs exactly once on approval', async () => {
    const { model, runner, sessionId, runs } = await setup([{ functionCalls: [{ ...MARK, id: 'm1' }] }, 'Marked.']);
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'mark it' });
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts).toEqual([
      expect.objectContaining({
        kind: 'confirmation',
        toolName: 'run_skill_script',
        hint: `Run scripts/append-mark.sh of skill 'csv-summary' with ["first"]?`,
        payload: expect.objectContaining({
          language: 'bash',
          code: readFileSync(fixture('good/csv-summary/scripts/append-mark.sh'), 'utf8'),
          args: ['first'],
          files: expect.arrayContaining(['skills/csv-summary/scripts/append-mark.sh']) as string[],
        }) as object,
      }),
    ]);
    expect(runs()).toBe('');

    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: true } });
    expect(resumed.status).toBe('completed');
    expect(runs()).toBe('first\n');
    expect(responseOf(resumed.events, 'run_skill_script')).toMatchObject({
      exitCode: 0,
      stdout: 'marked first\n',
      timedOut: false,
      files: [expect.objectContaining({ path: 'runs.log' })],
    });
    expect(JSON.stringify((model.requests[1] as LlmRequest).contents)).toContain('marked first');
  });

  it('never runs a rejected script, and the model is told it was rejected', async () => {
    const { model, runner, sessionId, runs } = await setup([{ functionCalls: [MARK] }, 'Not marked.']);
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'mark it' });
    const resumed = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: false } });
    expect(resumed.status).toBe('completed');
    expect(runs()).toBe('');
    expect(JSON.stringify(responseOf(resumed.events, 'run_skill_script'))).toMatch(/reject/i);
    model.assertDone();
  });

  it('runs without asking when the agent has allowCodeExecution, with the skill files in the working folder', async () => {
    const { runner, sessionId, folder } = await setup(
      [
        {
          functionCalls: [
            {
              name: 'run_skill_script',
              args: {
                name: 'csv-summary',
                script: 'scripts/count-rows.mjs',
                args: ['skills/csv-summary/assets/sample.csv'],
              },
            },
          ],
        },
        '3 rows, 2 columns.',
      ],
      true,
    );
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'summarize the sample' });
    expect(result.status).toBe('completed');
    expect(responseOf(result.events, 'run_skill_script')).toMatchObject({
      exitCode: 0,
      stdout: '3 rows, 2 columns\n',
      files: [],
    });
    expect(existsSync(join(folder, 'skills/csv-summary/references/format.md'))).toBe(true);
  });

  it('refuses scripts outside scripts/, without a runnable extension, or unknown, naming the script', async () => {
    const call = (script: string, id: string) => ({
      name: 'run_skill_script',
      args: { name: 'csv-summary', script },
      id,
    });
    const { runner, sessionId, runs } = await setup([
      {
        functionCalls: [
          call('../SKILL.md', 'a'),
          call('notes.txt', 'b'),
          call('missing.py', 'c'),
          call('/bin/sh', 'd'),
        ],
      },
      'ok',
    ]);
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'run things' });
    expect(result.status).toBe('completed');
    const errors = result.events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => ('functionResponse' in p ? [p.functionResponse] : []))
      .sort((a, b) => (a.id ?? '').localeCompare(b.id ?? ''))
      .map((r) => r.response.error);
    expect(errors).toEqual([
      `The script path "../SKILL.md" of skill 'csv-summary' leaves the skill's folder ('..'). Use a path inside it, as load_skill lists them.`,
      `The script "notes.txt" of skill 'csv-summary' has no runnable extension. Scripts run by extension: .py, .js, .mjs, .sh.`,
      `The script path "scripts/missing.py" of skill 'csv-summary' does not exist. Call load_skill('csv-summary') for the list of its files.`,
      `The script path "/bin/sh" of skill 'csv-summary' is absolute. Use a path relative to the skill's folder, as load_skill lists them (e.g. 'references/guide.md').`,
    ]);
    expect(runs()).toBe('');
  });
});
