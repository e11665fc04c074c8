import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, LlmAgent, loadAgent } from '../../src/index.js';

// Regression: a YAML alias bomb of a few hundred bytes froze loadAgent (its aliases were expanded
// without a limit). The load runs in a child process that is killed after 15 s, so the old
// behaviour fails this test instead of freezing the test run.

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const coreSource = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const bomb = fileURLToPath(new URL('./fixtures/billion-laughs.yaml', import.meta.url));

function tempYaml(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'troupe-yaml-')), 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

describe('YAML limits of loadAgent', () => {
  it('refuses a billion-laughs alias bomb without expanding it, naming the file, the line of the alias and the fix', async () => {
    const script = `
      const { loadAgent } = await import(${JSON.stringify(coreSource)});
      try {
        await loadAgent(${JSON.stringify(bomb)});
        console.log(JSON.stringify({ loaded: true }));
      } catch (error) {
        console.log(JSON.stringify({ name: error.name, message: error.message, line: error.line }));
      }`;
    // Expanded, the bomb would take the child's memory and far more than its 15 s: the process
    // timeout is the bound (speed itself is not asserted in unit tests).
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repo,
      timeout: 15_000,
    });
    const outcome = JSON.parse(stdout) as { name: string; message: string; line: number };
    expect(outcome.name).toBe('AgentDefinitionError');
    expect(outcome.message).toMatch(
      /billion-laughs\.yaml:\d+: the alias \*\w brings the document over 10000 values copied from anchors: aliases inside aliases multiply \(an alias bomb\)\. Write the repeated values out, or nest fewer aliases\.$/,
    );
    expect(outcome.line).toBeGreaterThanOrEqual(5);
  }, 30_000);

  it('still loads definitions that reuse values through aliases', async () => {
    const file = tempYaml(
      [
        'name: writer',
        'instruction: &text Write one sentence.',
        'description: *text',
        'output_schema: &schema { type: object, properties: { a: { type: string } } }',
        'input_schema: *schema',
      ].join('\n'),
    );
    const agent = await loadAgent(file);
    expect(agent).toBeInstanceOf(LlmAgent);
    expect(agent.description).toBe('Write one sentence.');
  });

  it('refuses values nested more than 100 levels deep with the line, before anything overflows the stack', async () => {
    const file = tempYaml(`name: deep\ninstruction: hi\ninput_schema:\n  x: ${'['.repeat(150)}${']'.repeat(150)}\n`);
    const error: unknown = await loadAgent(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect((error as AgentDefinitionError).line).toBe(4);
    expect((error as Error).message).toContain(
      ':4: values nest more than 100 levels deep here. Flatten this part of the definition.',
    );
  });
});
