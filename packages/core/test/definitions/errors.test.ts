import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, ConfigurationError, TroupeError, loadAgent, type BaseAgent } from '@troupe/core';
import { fixture } from './helpers.js';

async function loadError(path: string): Promise<AgentDefinitionError> {
  const error: unknown = await loadAgent(fixture(path)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message as shown: `<file relative to the working directory>:<line>: ...`. */
const at = (path: string, line: number): string => `packages/core/test/definitions/fixtures/${path}:${line}: `;

describe('loadAgent errors name the file, the line and the key', () => {
  it.each([
    // [fixture, line, key, what the message says]
    [
      'errors/bad-value.yaml',
      3,
      'max_iterations',
      `'max_iterations' must be a whole number of at least 1; got the string "five". Write e.g. 'max_iterations: 5'.`,
    ],
    [
      'errors/unknown-type.yaml',
      2,
      'type',
      `'type' is 'lopo', which is not an agent type. Did you mean 'loop'? Use one of llm, sequential, parallel, loop, routed, team, function`,
    ],
    [
      'errors/unknown-key.yaml',
      2,
      'instructions',
      `unknown key 'instructions' for an llm agent. Did you mean 'instruction'?`,
    ],
    [
      'errors/wrong-type-key.yaml',
      3,
      'max_iterations',
      `'max_iterations' is not a key of an llm agent; it belongs to loop and plan_execute agents.`,
    ],
    [
      'errors/missing-skill.yaml',
      5,
      'skills[1]',
      `'./no-such-skill.js' does not exist (looked for ${fixture('errors/no-such-skill.js')})`,
    ],
    [
      'errors/missing-tool.yaml',
      5,
      'tools[1]',
      `'./tools/nope.js' does not exist (looked for ${fixture('errors/tools/nope.js')})`,
    ],
    [
      'errors/missing-router.yaml',
      5,
      'router',
      `'./no-router.js' does not exist (looked for ${fixture('errors/no-router.js')})`,
    ],
    [
      'errors/team-concurrency.yaml',
      6,
      'iterate_with_previous_output',
      `'concurrency' is 2. Set 'concurrency: 1' or turn 'iterate_with_previous_output' off.`,
    ],
    [
      'errors/duplicate-name.yaml',
      5,
      'sub_agents[1].name',
      `the agent name 'Same' is already used in this agent tree (at ${at('errors/duplicate-name.yaml', 4).slice(0, -2)})`,
    ],
    [
      'errors/bad-model.yaml',
      3,
      'model',
      `model 'nowhere/model-x' cannot be used: No model provider is registered for 'nowhere/model-x'`,
    ],
    [
      'errors/bad-schema.yaml',
      2,
      'output_schema',
      `'output_schema' is not a valid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values`,
    ],
    ['errors/repeated-key.yaml', 5, 'iterateOn', `'iterateOn' repeats 'iterate_on' (line 4)`],
    [
      'errors/missing-run.yaml',
      1,
      'run',
      `'run' is required for a function agent: the module whose default export is the function (input, ctx) => output.`,
    ],
    ['errors/inline-no-name.yaml', 4, 'sub_agents[0].name', `'name' is required in an inline definition`],
    [
      'errors/bad-tool.yaml',
      4,
      'tools[0]',
      `'exit-loop' is not a built-in tool or a file path. Did you mean 'exit_loop'?`,
    ],
    [
      'errors/bad-sub-agent.yaml',
      4,
      'sub_agents[0]',
      `'sub_agents[0]' must be a path to an agent file (.yaml, .yml, .json, .js, .ts) relative to this file, or an inline definition (a mapping with 'name:' and 'type:'); got the number 42.`,
    ],
  ])('%s', async (path, line, key, says) => {
    const error = await loadError(path);
    expect(error.message).toContain(at(path, line));
    expect(error.message).toContain(says);
    expect(error.message).toMatch(new RegExp(`${escape(at(path, line))}(${escape(key)}: |.*'${escape(key)}')`));
    expect(error).toMatchObject({ file: fixture(path), line, key, code: 'AGENT_DEFINITION' });
    expect(error).toBeInstanceOf(TroupeError);
  });

  it('reports an error inside an included file at that file and line', async () => {
    const error = await loadError('errors/nested-error.yaml');
    expect(error.message).toContain(`${at('errors/bad-value.yaml', 3)}'max_iterations' must be a whole number`);
    expect(error).toMatchObject({ file: fixture('errors/bad-value.yaml'), line: 3, key: 'max_iterations' });
  });

  it('lists the chain of files that form a cycle', async () => {
    const error = await loadError('errors/cycle-a.yaml');
    const dir = 'packages/core/test/definitions/fixtures/errors';
    expect(error.message).toContain(
      `${at('errors/cycle-b.yaml', 5)}sub_agents[1]: the agent files form a cycle: ${dir}/cycle-a.yaml → ${dir}/cycle-b.yaml → ${dir}/cycle-a.yaml.`,
    );
    expect(error.key).toBe('sub_agents[1]');
  });

  it('gives the line of invalid YAML and invalid JSON', async () => {
    const yaml = await loadError('errors/invalid.yaml');
    expect(yaml.message).toContain(
      `${at('errors/invalid.yaml', 4)}invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
    expect(yaml.key).toBeUndefined();
    const json = await loadError('errors/invalid.json');
    expect(json.message).toContain(`${at('errors/invalid.json', 3)}invalid JSON:`);
  });

  it('rejects a file that is not a mapping', async () => {
    const error = await loadError('errors/not-a-map.yaml');
    expect(error.message).toContain(`${at('errors/not-a-map.yaml', 1)}the file holds a list, not an agent definition.`);
  });

  it('names the root path that is missing, a directory without a definition, and an unsupported file', async () => {
    expect((await loadError('nowhere.yaml')).message).toContain(
      `no agent file or directory at '${fixture('nowhere.yaml')}'`,
    );
    expect((await loadError('empty-dir')).message).toContain(
      'has no agent definition: looked for agent.yaml, agent.yml, agent.json',
    );
    expect((await loadError('empty-dir/README.md')).message).toContain(
      "README.md' is not an agent definition. Pass a .yaml, .yml, .json, .js",
    );
  });

  it('rejects bad loadAgent options with the fix', async () => {
    await expect(loadAgent(fixture('helper.yaml'), { models: { fast: 'gpt' as never } })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(loadAgent(fixture('helper.yaml'), { model: 42 as never })).rejects.toThrow(
      "loadAgent's 'model' option must be a model string",
    );
  });
});

describe('nothing half-loaded escapes', () => {
  // Imported the way the loader imports it, so this is the very instance the definitions name.
  const readyAgent = async (): Promise<BaseAgent> =>
    ((await import(pathToFileURL(fixture('errors/ready.js')).href)) as { default: BaseAgent }).default;

  it('a missing file after a module agent: the module agent is not adopted, and the load can be repeated', async () => {
    const first = await loadError('errors/late-failure.yaml');
    expect(first.message).toContain(
      `${at('errors/late-failure.yaml', 6)}sub_agents[1]: './missing.yaml' does not exist`,
    );
    expect((await readyAgent()).parentAgent).toBeUndefined();
    const second = await loadError('errors/late-failure.yaml');
    expect(second.message).toBe(first.message);
  });

  it('a duplicate name involving a module agent is caught before any agent is constructed', async () => {
    const error = await loadError('errors/late-duplicate.yaml');
    expect(error.message).toContain(
      `${at('errors/late-duplicate.yaml', 6)}sub_agents[1].name: the agent name 'ReadyTwin' is already used in this agent tree`,
    );
    expect((await readyAgent()).parentAgent).toBeUndefined();
    // The agent the failed loads named is still free: a valid definition places that very instance.
    const placed = await loadAgent(fixture('errors/ready-placed.yaml'));
    expect(placed.subAgents[0]).toBe(await readyAgent());
  });
});
