import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/index.js';
import { fakeIo, tempDir } from '../helpers.js';

// Agent names in a transcript were coloured by a hash of the name into six colours, so two agents of
// one run could share a colour (Researcher and Critic did). Now each agent of a transcript gets the
// next colour in order of appearance: the first six agents never share one.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

/** A pipeline of FunctionAgents with these names, as an agent file inside the repository (so it resolves @troupe/core). */
function pipelineOf(names: readonly string[]): string {
  const dir = tempDir('troupe-colours-', join(repo, 'node_modules', '.cache'));
  const file = join(dir, 'agent.ts');
  writeFileSync(
    file,
    [
      "import { FunctionAgent, SequentialAgent } from '@troupe/core';",
      'export const rootAgent = new SequentialAgent({',
      "  name: 'Pipeline',",
      `  subAgents: ${JSON.stringify(names)}.map((name) => new FunctionAgent({ name, run: () => name + ' done' })),`,
      '});',
      '',
    ].join('\n'),
  );
  return file;
}

/** The escape sequence each agent's name is painted with in the transcript. */
function colourOfEachAgent(out: string, names: readonly string[]): Map<string, string> {
  const colours = new Map<string, string>();
  for (const name of names) {
    const match = new RegExp(`(\\u001b\\[[0-9;]+m)${name}:`).exec(out);
    expect(match, `${name} is painted`).not.toBeNull();
    colours.set(name, match![1]!);
  }
  return colours;
}

describe('agent colours in one transcript', () => {
  it('six agents of one run get six colours (Researcher and Critic hashed to the same one)', async () => {
    const names = ['Researcher', 'Critic', 'Writer', 'Reviewer', 'Planner', 'Editor'];
    const io = { ...fakeIo(repo), env: { FORCE_COLOR: '1' } };
    io.stdin.end();
    const code = await runCli(['run', pipelineOf(names), '--memory', '--input', 'go'], io);
    expect(code).toBe(ExitCode.ok);
    const colours = colourOfEachAgent(io.out(), names);
    expect(new Set(colours.values()).size).toBe(names.length);
  });
});
