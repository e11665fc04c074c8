import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Regression (issue #28 item 13): a definition whose aliases fan out wide, not deep (one anchor,
// then 50,000 aliases of it in a list: 400 KB of `- *a`), took minutes and 168 MB in loadAgent
// before being refused. Expanding stopped at the limit of values already, but each alias was
// resolved by the yaml package's Alias.resolve(doc), which walks the whole document: 10,000
// aliases times a 50,000-node document. Aliases are now resolved through one index of the
// anchors, built in one pass. The work is bounded by the values expanded, which the error names:
// refused at the alias that brings the count over the limit (its line), nothing after it expanded.
// As in yaml-alias-bomb.test.ts, the load runs in a child process killed after 15 s, so the old
// behaviour fails this test instead of holding the test run up for minutes.

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const coreSource = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'troupe-yaml-wide-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads `file` with loadAgent in a child process, bounded by its 15 s timeout. */
async function loadInChild(file: string): Promise<{ name?: string; message?: string; line?: number; loaded?: true }> {
  const script = `
    const { loadAgent } = await import(${JSON.stringify(coreSource)});
    try {
      await loadAgent(${JSON.stringify(file)});
      console.log(JSON.stringify({ loaded: true }));
    } catch (error) {
      console.log(JSON.stringify({ name: error.name, message: error.message, line: error.line }));
    }`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repo,
    timeout: 15_000,
  });
  return JSON.parse(stdout) as { name?: string; message?: string; line?: number };
}

describe('a wide YAML alias bomb', () => {
  it('is refused at the alias that passes 10000 expanded values, the rest of the document untouched', async () => {
    const file = join(dir, 'agent.yaml');
    // Lines 1-4 are the header; alias n (from 1) is on line 4 + n.
    const header = ['name: Wide', 'instruction: hi', 'description: &a v', 'input_schema:'];
    writeFileSync(file, [...header, ...Array.from({ length: 50_000 }, () => '  - *a'), ''].join('\n'));
    const outcome = await loadInChild(file);
    expect(outcome.name).toBe('AgentDefinitionError');
    expect(outcome.message).toBe(
      `${file}:10005: the alias *a brings the document over 10000 values copied from anchors: aliases inside aliases multiply (an alias bomb). Write the repeated values out, or nest fewer aliases.`,
    );
    // Alias 10,001 on line 10,005: expansion stopped there, at the limit.
    expect(outcome.line).toBe(4 + 10_001);
  }, 30_000);

  it('a wide document within the limit still loads, its aliases resolved to the anchor before each', async () => {
    const file = join(dir, 'within.yaml');
    const lines = ['name: Within', 'instruction: &a first', 'description: &a second', 'input_schema:'];
    lines.push('  type: object', '  examples:');
    writeFileSync(file, [...lines, ...Array.from({ length: 9_000 }, () => '    - *a'), ''].join('\n'));
    const script = `
      const { loadAgent } = await import(${JSON.stringify(coreSource)});
      const agent = await loadAgent(${JSON.stringify(file)});
      const examples = agent.inputSchema.examples;
      console.log(JSON.stringify({ name: agent.name, count: examples.length, values: [...new Set(examples)] }));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repo,
      timeout: 15_000,
    });
    expect(JSON.parse(stdout)).toEqual({ name: 'Within', count: 9000, values: ['second'] });
  }, 30_000);
});
