import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture } from './helpers.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const coreDist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('loadAgent and TypeScript modules in plain Node', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(coreDist)) return;
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { cwd: repo });
  }, 120_000);

  it('says to use the troupe CLI or register tsx when Node cannot load a .ts entry', async () => {
    const script = `
      import { loadAgent } from ${JSON.stringify(coreDist)};
      try {
        await loadAgent(${JSON.stringify(fixture('workflows.yaml'))});
        console.log('loaded');
      } catch (error) {
        console.log(JSON.stringify({ name: error.name, message: error.message, line: error.line, key: error.key }));
      }`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: repo });
    const error = JSON.parse(stdout) as { name: string; message: string; line: number; key: string };
    expect(error.name).toBe('AgentDefinitionError');
    expect(error).toMatchObject({ line: 11, key: 'sub_agents[1].sub_agents[1]' });
    expect(error.message).toContain(
      'packages/core/test/definitions/fixtures/workflows.yaml:11: sub_agents[1].sub_agents[1]: Node cannot load the TypeScript module',
    );
    expect(error.message).toContain("Run the agent through the troupe CLI ('troupe run')");
    expect(error.message).toContain('register tsx first');
  });
});
