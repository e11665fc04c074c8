import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir, troupe } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The `troupe ...` command lines of the sh blocks of a doc, each with the comment after it. */
function commandsOf(doc: string): { argv: string[]; comment: string }[] {
  const commands: { argv: string[]; comment: string }[] = [];
  const blocks = readFileSync(join(repo, doc), 'utf8').split('```sh\n').slice(1);
  for (const block of blocks)
    for (const line of block.slice(0, block.indexOf('```')).split('\n')) {
      if (!line.startsWith('troupe ')) continue;
      const hash = line.indexOf('  #');
      commands.push({
        argv: words(hash >= 0 ? line.slice(0, hash) : line).slice(1),
        comment: hash >= 0 ? line.slice(hash + 3).trim() : '',
      });
    }
  return commands;
}

/** Splits a command line into words as sh does for these docs: spaces, and double-quoted words. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('docs/eval.md', () => {
  it('its commands run as written, from a folder that has the examples (those needing no API key)', async () => {
    // Inside the repository, so that the examples (linked in) find its node_modules as they do at home.
    const cwd = tempDir('troupe-eval-docs-', join(repo, 'node_modules', '.cache'));
    symlinkSync(join(repo, 'examples'), join(cwd, 'examples'), 'dir');
    // Synopses (`troupe eval <agent file or dir> <evalset.json> [--model m] ...`) are not commands.
    const commands = commandsOf('docs/eval.md').filter(({ argv }) => !argv.some((word) => word.startsWith('[')));
    const runnable = commands.filter(({ comment }) => !/needs \w+_API_KEY/.test(comment));
    // The key-free commands: the two eval sets the examples ship, then saving a session and evaluating it.
    expect(runnable.map(({ argv }) => argv.slice(0, 3).join(' '))).toEqual([
      'eval examples/coordinator examples/coordinator/routing.evalset.json',
      'eval examples/research-report examples/research-report/delegation.evalset.json',
      'run examples/coordinator --input',
      'eval --from-session <id>',
      'eval examples/coordinator evals/coordinator.evalset.json',
    ]);
    let sessionId = '';
    for (const { argv } of runnable) {
      const result = await troupe(cwd, ...argv.map((word) => (word === '<id>' ? sessionId : word)));
      expect(result.code, `troupe ${argv.join(' ')}: ${result.err}`).toBe(0);
      if (argv[0] === 'run') sessionId = /session: (\S+)/.exec(result.err)![1]!;
      if (argv.includes('--json')) expect((JSON.parse(result.out) as { passed: boolean }).passed).toBe(true);
      else if (argv[0] === 'eval' && argv[1] !== '--from-session')
        expect(result.out).toMatch(/(\d+) of \1 cases? passed\./);
    }
  }, 60_000);
});
