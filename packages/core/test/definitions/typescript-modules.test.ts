import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const coreDist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** Node 22.18+ and 24 strip types from .ts files by themselves; Node 20 cannot load them at all. */
const nodeStripsTypes = Boolean((process.features as { typescript?: string | false }).typescript);

interface Outcome {
  loaded?: boolean;
  name?: string;
  message?: string;
  line?: number;
  key?: string;
}

/** Loads a definition with `loadAgent` in plain Node (no tsx, no troupe CLI) and reports what happened. */
async function loadInPlainNode(definition: string): Promise<Outcome> {
  const script = `
    import { loadAgent } from ${JSON.stringify(coreDist)};
    try {
      await loadAgent(${JSON.stringify(fixture(definition))});
      console.log(JSON.stringify({ loaded: true }));
    } catch (error) {
      console.log(JSON.stringify({ name: error.name, message: error.message, line: error.line, key: error.key }));
    }`;
  const { stdout } = await run(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { cwd: repo });
  return JSON.parse(stdout) as Outcome;
}

describe('loadAgent and TypeScript modules in plain Node', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(coreDist)) return;
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { cwd: repo });
  }, 120_000);

  it('loads a .ts entry where Node strips types; elsewhere says to use the troupe CLI or register tsx', async () => {
    const outcome = await loadInPlainNode('workflows.yaml');
    if (nodeStripsTypes) {
      expect(outcome).toEqual({ loaded: true });
      return;
    }
    expect(outcome.name).toBe('AgentDefinitionError');
    expect(outcome).toMatchObject({ line: 11, key: 'sub_agents[1].sub_agents[1]' });
    expect(outcome.message).toContain(
      'packages/core/test/definitions/fixtures/workflows.yaml:11: sub_agents[1].sub_agents[1]: Node cannot load the TypeScript module',
    );
    expect(outcome.message).toContain("Run the agent through the troupe CLI ('troupe run')");
    expect(outcome.message).toContain('register tsx first');
  });

  it('says to use the troupe CLI or register tsx when a .ts entry needs compiling', async () => {
    const error = await loadInPlainNode('ts-syntax.yaml');
    expect(error.name).toBe('AgentDefinitionError');
    expect(error).toMatchObject({ line: 5, key: 'sub_agents[0]' });
    expect(error.message).toContain('ts-syntax.yaml:5: sub_agents[0]: Node cannot load the TypeScript module');
    expect(error.message).toContain("Run the agent through the troupe CLI ('troupe run')");
    expect(error.message).toContain('register tsx first');
  });
});
