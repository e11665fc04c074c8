import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentDefinitionError, BaseAgent, FunctionAgent, LlmAgent, OfflineModel } from '@troupe/core';
import { AgentLoadError, appNameFor, loadAgentModule, resolveAgentFile } from '../src/index.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function loadError(path: string): Promise<AgentLoadError> {
  const error: unknown = await loadAgentModule(path, { cwd: fixtures }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentLoadError);
  return error as AgentLoadError;
}

describe('loadAgentModule', () => {
  let emptyDir: string;
  beforeAll(async () => {
    emptyDir = await mkdtemp(join(tmpdir(), 'troupe-cli-empty-'));
  });
  afterAll(async () => {
    await rm(emptyDir, { recursive: true, force: true });
  });

  it('loads the rootAgent export of a TypeScript file, named after the file', async () => {
    const loaded = await loadAgentModule('hello.ts', { cwd: fixtures });
    expect(loaded.agent).toBeInstanceOf(LlmAgent);
    expect(loaded.agent.name).toBe('Greeter');
    expect(loaded.exportName).toBe('rootAgent');
    expect(loaded.appName).toBe('hello');
    expect(loaded.file).toBe(join(fixtures, 'hello.ts'));
  });

  it('loads the default export of a JavaScript file', async () => {
    const loaded = await loadAgentModule(join(fixtures, 'default-export.js'));
    expect(loaded.agent).toBeInstanceOf(FunctionAgent);
    expect(loaded.agent.name).toBe('Echo');
    expect(loaded.exportName).toBe('default');
    expect(loaded.appName).toBe('default-export');
  });

  it('loads agent.ts from a directory, named after the directory', async () => {
    const loaded = await loadAgentModule('team', { cwd: fixtures });
    expect(loaded.agent.name).toBe('Coordinator');
    expect(loaded.agent.subAgents.map((a) => a.name)).toEqual(['Forecaster']);
    expect(loaded.file).toBe(join(fixtures, 'team', 'agent.ts'));
    expect(loaded.appName).toBe('team');
  });

  it('loads agent.js from a directory when there is no agent.ts', async () => {
    const loaded = await loadAgentModule('js-dir', { cwd: fixtures });
    expect(loaded.agent).toBeInstanceOf(BaseAgent);
    expect(loaded.agent.name).toBe('Shouter');
    expect(loaded.file).toBe(join(fixtures, 'js-dir', 'agent.js'));
    expect(loaded.appName).toBe('js-dir');
  });

  it('names the file and lists its exports when none is an agent', async () => {
    const error = await loadError('not-an-agent.ts');
    expect(error.failure).toBe('bad-export');
    expect(error.message).toContain("'not-an-agent.ts' exports no agent");
    expect(error.message).toContain("'settings' (an object)");
    expect(error.message).toContain("'helper' (a function 'helper')");
    expect(error.message).toContain('export const rootAgent');
  });

  it('rejects a rootAgent export that is not an agent, without falling back to the default export', async () => {
    const error = await loadError('bad-root-agent.ts');
    expect(error.failure).toBe('bad-export');
    expect(error.message).toContain(
      "export 'rootAgent' of 'bad-root-agent.ts' is a function 'rootAgent', not an agent",
    );
    expect(error.message).toContain('new FunctionAgent({ name, run })');
  });

  it('names the missing path and how to fix it', async () => {
    const error = await loadError('no/such/agent.ts');
    expect(error.failure).toBe('not-found');
    expect(error.message).toContain("No agent file or directory at 'no/such/agent.ts'");
    expect(error.message).toContain(join(fixtures, 'no/such/agent.ts'));
  });

  it('lists the file names it looked for in a directory without an agent module', async () => {
    const error: unknown = await resolveAgentFile(emptyDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentLoadError);
    expect((error as AgentLoadError).message).toContain(
      'looked for agent.ts, agent.mts, agent.js, agent.mjs, agent.yaml, agent.yml, agent.json',
    );
  });

  it('rejects files that are neither modules nor agent definitions', async () => {
    const error = await loadError('not-an-agent.txt');
    expect(error.failure).toBe('unsupported-file');
    expect(error.message).toContain("'not-an-agent.txt' is not a module or agent definition file (.txt)");
    expect(error.message).toContain('.yaml, .yml, .json agent definition');
  });

  it('loads a YAML definition from a directory (agent.yaml) with its TypeScript tool, and a JSON file, with the given default model', async () => {
    const model = new OfflineModel();
    const loaded = await loadAgentModule('yaml-agent', { cwd: fixtures, model });
    expect(loaded).toMatchObject({
      exportName: 'definition',
      appName: 'yaml-agent',
      file: join(fixtures, 'yaml-agent', 'agent.yaml'),
    });
    expect(loaded.agent).toBeInstanceOf(LlmAgent);
    expect((loaded.agent as LlmAgent).model).toBe(model);
    expect((loaded.agent as LlmAgent).tools.map((t) => t.name)).toEqual(['get_forecast']);
    const json = await loadAgentModule('greeter.json', { cwd: fixtures });
    expect(json).toMatchObject({ exportName: 'definition', appName: 'greeter' });
    expect(json.agent.name).toBe('JsonGreeter');
    expect((json.agent as LlmAgent).model).toBeUndefined();
  });

  it('reports an invalid definition as a usage error naming the file, line and key', async () => {
    const error = await loadError('broken-definition.yaml');
    expect(error.failure).toBe('invalid-definition');
    expect(error.message).toContain(
      `broken-definition.yaml:3: 'max_iterations' must be a whole number of at least 1; got the string "five". Write e.g. 'max_iterations: 5'.`,
    );
    expect(error.cause).toBeInstanceOf(AgentDefinitionError);
  });

  it('reports a module named by a definition that throws while loading with its own error as the cause', async () => {
    const error = await loadError('throwing-skill.yaml');
    expect(error.failure).toBe('import-failed');
    expect(error.message).toContain('throwing-skill.yaml:4: sub_agents[0]: loading module');
    expect(error.message).toContain('throws-on-load.js failed: agent module exploded while loading');
    expect((error.cause as Error).message).toBe('agent module exploded while loading');
  });

  it("reports a module that throws while loading with the module's error as the cause", async () => {
    const error = await loadError('throws-on-load.js');
    expect(error.failure).toBe('import-failed');
    expect(error.message).toBe("Loading agent module 'throws-on-load.js' failed: agent module exploded while loading");
    expect((error.cause as Error).message).toBe('agent module exploded while loading');
  });
});

describe('appNameFor', () => {
  it('uses the folder of an agent.* file and the stem of any other file', () => {
    expect(appNameFor('/apps/weather/agent.ts')).toBe('weather');
    expect(appNameFor('/apps/weather/agent.mjs')).toBe('weather');
    expect(appNameFor('/apps/travel-desk.ts')).toBe('travel-desk');
  });
});
