import { describe, expect, it } from 'vitest';
import { type AgentTool, LlmAgent, OfflineModel, type TeamAgent, loadAgent, type BaseAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture, runAgent } from './helpers.js';

const find = (root: BaseAgent, name: string): LlmAgent => {
  const agent = root.findAgent(name);
  if (!(agent instanceof LlmAgent)) throw new Error(`no LlmAgent '${name}'`);
  return agent;
};

describe('loadAgent: keys, paths and entries', () => {
  it('reads camelCase, snake_case and kebab-case keys alike', async () => {
    const agent = (await loadAgent(fixture('mixed-case.yaml'))) as LlmAgent;
    expect(agent).toMatchObject({ outputKey: 'camel_result', includeContents: 'none', disallowTransferToPeers: true });
    expect(agent.subAgents).toHaveLength(1);
    expect(agent.subAgents[0]).toMatchObject({ name: 'Child', disallowTransferToParent: true });
  });

  it('resolves paths relative to the file that names them, through nested folders and ..', async () => {
    const agent = await loadAgent(fixture('nested/branch.yaml'));
    expect(agent.subAgents.map((a) => a.name)).toEqual(['Leaf', 'Researcher']);
    expect((agent.subAgents[0] as LlmAgent).instruction).toBe('I am the leaf.');
  });

  it('reads .yaml, .json, .js and .ts entries and inline definitions', async () => {
    const assistant = await loadAgent(fixture('assistant.yaml'), {
      models: { fast: new ScriptedModel([]), backup: new ScriptedModel([]) },
    });
    // helper.json (camelCase JSON keys) and an inline definition as sub-agents, helper.yaml as an AgentTool.
    expect(assistant.subAgents.map((a) => [a.name, (a as LlmAgent).instruction])).toEqual([
      ['Writer', 'Write the answer.'],
      ['Inline', 'I am defined inline.'],
    ]);
    expect(((assistant as LlmAgent).tools[2] as AgentTool).agent.name).toBe('Researcher');
    const workflows = await loadAgent(fixture('workflows.yaml'), { model: new ScriptedModel([]) });
    expect(workflows.findAgent('count')).toBeDefined(); // steps/count.ts
    expect(workflows.findAgent('Upper')).toBeDefined(); // steps/upper.js
  });

  it("a module's default-export function becomes a FunctionAgent named after the file, or its agentName, reading its properties", async () => {
    const team = (await loadAgent(fixture('team.yaml'))) as TeamAgent;
    expect(team.skills[0]!.name).toBe('draft'); // team/draft.js, no agentName
    expect(team.reflection!.reviewer.name).toBe('Reviewer'); // review.agentName
    const workflows = await loadAgent(fixture('workflows.yaml'), { model: new ScriptedModel([]) });
    expect(workflows.findAgent('Upper')).toMatchObject({ description: 'Upper-cases the draft.', outputKey: 'upper' });
  });

  it('names an agent after its file when the definition has no name', async () => {
    const unnamed = await loadAgent(fixture('unnamed-agent.yaml'));
    expect(unnamed.name).toBe('unnamed_agent');
  });
});

describe('loadAgent: models', () => {
  it('uses the models map for model names, the registry for other strings, and the default for agents that name none', async () => {
    const fast = new ScriptedModel([]);
    const fallback = new ScriptedModel([]);
    const root = await loadAgent(fixture('models.yaml'), { model: fallback, models: { fast } });

    expect(find(root, 'Named').model).toBe(fast);
    // A child of an LlmAgent with a model inherits it rather than taking the default.
    expect(find(root, 'Inheriting').model).toBeUndefined();
    expect(find(root, 'Inheriting').canonicalModel()).toBe(fast);
    expect(find(root, 'Defaulted').model).toBe(fallback);
    // A team skill has no LlmAgent ancestor: it gets the default.
    expect(find(root, 'Skill').model).toBe(fallback);
    expect(find(root, 'Registry').model).toBeInstanceOf(OfflineModel);
    // An agent called as a tool is a tree of its own: it inherits nothing, so it gets the default.
    const tool = find(root, 'WithTool').tools[0] as AgentTool;
    expect((tool.agent as LlmAgent).model).toBe(fallback);
  });

  it('resolves a default model given as a string, and leaves agents without one to the runner when there is none', async () => {
    const withString = await loadAgent(fixture('models.yaml'), {
      model: 'offline',
      models: { fast: new ScriptedModel([]) },
    });
    expect(find(withString, 'Defaulted').model).toBeInstanceOf(OfflineModel);

    const withoutDefault = await loadAgent(fixture('models.yaml'), { models: { fast: new ScriptedModel([]) } });
    expect(find(withoutDefault, 'Defaulted').model).toBeUndefined();
    const leaf = (await loadAgent(fixture('helper.yaml'))) as LlmAgent;
    expect(leaf.model).toBeUndefined();
    expect(
      (await runAgent(leaf, { message: 'hi', defaultModel: new ScriptedModel(['from the runner default']) })).output,
    ).toBe('from the runner default');
  });

  it('calls the named model when the agent runs', async () => {
    const fast = new ScriptedModel(['fast answer']);
    const agent = await loadAgent(fixture('mixed-case.yaml'), { models: {}, model: fast });
    const result = await runAgent(agent, { message: 'hi' });
    expect(result.output).toBe('fast answer');
    expect(result.state.camel_result).toBe('fast answer');
    fast.assertDone();
  });
});
