import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RoutedAgent,
  SequentialAgent,
  TeamAgent,
  exitLoop,
  getFunctionResponses,
  loadAgent,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture, runAgent } from './helpers.js';

describe('loadAgent: agent types', () => {
  it('llm: reads every LlmAgent option, its tools (module, built-in, AgentTool) and sub-agents', async () => {
    const fast = new ScriptedModel([{ functionCalls: [{ name: 'add', args: { a: 2, b: 3 } }] }, 'The sum is 5.']);
    const backup = new ScriptedModel([]);
    const agent = await loadAgent(fixture('assistant.yaml'), { models: { fast, backup } });

    expect(agent).toBeInstanceOf(LlmAgent);
    const llm = agent as LlmAgent;
    expect(llm).toMatchObject({
      name: 'Assistant',
      description: 'Answers questions.',
      model: fast,
      fallbackModels: [backup],
      instruction: 'Answer questions about {topic?}.',
      globalInstruction: 'Be brief.',
      outputKey: 'answer',
      inputKey: 'question',
      includeContents: 'none',
      disallowTransferToParent: true,
      disallowTransferToPeers: true,
      generateContentConfig: {
        temperature: 0.2,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        responseMimeType: 'text/plain',
      },
    });
    expect(llm.tools.map((t) => t.name)).toEqual(['add', 'exit_loop', 'Researcher']);
    expect(llm.tools[0]).toBeInstanceOf(FunctionTool);
    expect(llm.tools[1]).toBe(exitLoop);
    expect(llm.tools[2]).toBeInstanceOf(AgentTool);
    expect((llm.tools[2] as AgentTool).skipSummarization).toBe(true);
    expect((llm.tools[2] as AgentTool).agent.parentAgent).toBeUndefined();
    expect(await llm.tools[0]!.getDeclaration()).toEqual({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
    expect(llm.subAgents.map((a) => a.name)).toEqual(['Writer', 'Inline']);
    expect((llm.subAgents[0] as LlmAgent).outputKey).toBe('draft');
    expect(llm.subAgents[1]!.description).toBe('Defined inline.');

    const result = await runAgent(agent, { message: 'What is 2 + 3?' });
    expect(result.status).toBe('completed');
    expect(result.events.flatMap(getFunctionResponses).map((r) => r.response)).toEqual([{ sum: 5 }]);
    expect(result.state.answer).toBe('The sum is 5.');
    fast.assertDone();
  });

  it('sequential, parallel and loop: runs the tree with .yaml, .js and .ts entries', async () => {
    const model = new ScriptedModel(['a short draft', 'polished once', 'polished twice']);
    const agent = await loadAgent(fixture('workflows.yaml'), { model });
    expect(agent).toBeInstanceOf(SequentialAgent);
    const [drafter, fanOut, refine] = agent.subAgents;
    expect(drafter).toBeInstanceOf(LlmAgent);
    expect(fanOut).toBeInstanceOf(ParallelAgent);
    expect((fanOut as ParallelAgent).maxConcurrency).toBe(2);
    expect(fanOut!.subAgents.map((a) => [a.name, a.constructor.name])).toEqual([
      ['Upper', 'FunctionAgent'],
      ['count', 'FunctionAgent'],
    ]);
    expect(fanOut!.subAgents[0]!.description).toBe('Upper-cases the draft.');
    expect(refine).toBeInstanceOf(LoopAgent);
    expect((refine as LoopAgent).maxIterations).toBe(2);

    const result = await runAgent(agent, { message: 'Write about otters' });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ upper: 'A SHORT DRAFT', draft: 'polished twice' });
    expect(result.events.find((e) => e.author === 'count')!.output).toEqual({ words: 3 });
    expect(result.output).toBe('polished twice');
    model.assertDone();
  });

  it('routed: agents as a record with a router module; falls back when the first choice fails', async () => {
    const agent = await loadAgent(fixture('routed.yaml'));
    expect(agent).toBeInstanceOf(RoutedAgent);
    expect(Object.keys((agent as RoutedAgent).agents)).toEqual(['primary', 'backup']);
    const result = await runAgent(agent, { message: 'help me' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('backup answered: help me');
    expect(result.events.map((e) => e.actions.route).filter(Boolean)).toEqual([
      { key: 'backup', reason: 'fallback after primary failed' },
    ]);
  });

  it('routed: agents as a list are keyed by name', async () => {
    const agent = await loadAgent(fixture('routed-list.yaml'));
    expect(Object.keys((agent as RoutedAgent).agents)).toEqual(['Short', 'Researcher']);
    expect((await runAgent(agent, { message: 'hi' })).output).toBe('backup answered: hi');
  });

  it('team: skills, mode, schemas, output key and reflection with a reviewer module', async () => {
    const agent = await loadAgent(fixture('team.yaml'));
    expect(agent).toBeInstanceOf(TeamAgent);
    const team = agent as TeamAgent;
    expect(team.skills.map((s) => s.name)).toEqual(['draft', 'Critic']);
    expect(team).toMatchObject({ mode: 'sequential', includeAllStepsOutput: true, outputKey: 'edited' });
    expect(team.reflection).toMatchObject({
      isApproved: 'approved',
      maxIterations: 3,
      returnLastOnMaxIterations: false,
      customErrorMessage: 'The editors never agreed.',
    });
    expect(team.reflection!.reviewer.name).toBe('Reviewer');

    const result = await runAgent(agent, { input: { topic: 'Cats' } });
    expect(result.status).toBe('completed');
    expect(result.output).toEqual({ text: 'Cats, revised', critique: 'checked: Cats, revised' });
    expect(result.state.edited).toEqual(result.output);

    await expect(runAgent(agent, { input: { subject: 'Cats' } })).rejects.toThrow(
      /must have required property 'topic'/,
    );
  });

  it('function: a module function with the definition’s name, description, output key and output schema', async () => {
    const agent = await loadAgent(fixture('function.yaml'));
    expect(agent).toBeInstanceOf(FunctionAgent);
    expect(agent).toMatchObject({ name: 'Shouter', description: 'Shouts the request.', outputKey: 'shouted' });
    const result = await runAgent(agent, { message: 'hello' });
    expect(result.output).toEqual({ text: 'HELLO!' });
    expect(result.state.shouted).toEqual({ text: 'HELLO!' });
  });

  it('type: <module path> exporting an agent class: constructed with the other keys in camelCase', async () => {
    const agent = await loadAgent(fixture('custom-class.yaml'));
    expect(agent.constructor.name).toBe('StatusAgent');
    expect(agent.name).toBe('Status');
    expect((agent as unknown as { statusKey: string }).statusKey).toBe('job_status');
    expect(agent.subAgents.map((a) => a.name)).toEqual(['Inner']);
    expect((await runAgent(agent, { message: 'status?', state: { job_status: 'done' } })).output).toBe('done');
  });

  it('type: <module path> exporting a function: a FunctionAgent, with the module’s description', async () => {
    const agent = await loadAgent(fixture('custom-function.yaml'));
    expect(agent).toBeInstanceOf(FunctionAgent);
    expect(agent).toMatchObject({ name: 'Loud', outputKey: 'loud', description: 'Overridden by the definition.' });
    expect((await runAgent(agent, { message: 'hey' })).state.loud).toEqual({ text: 'HEY!' });
  });

  it('a module exporting a ready-made agent is placed as is, and cannot be placed again by a second load', async () => {
    const agent = await loadAgent(fixture('custom-instance.yaml'));
    const ready = agent.subAgents[0]!;
    expect(ready.name).toBe('Ready');
    expect(ready.parentAgent).toBe(agent);
    expect((await runAgent(agent, { message: 'go' })).output).toBe('ready-made');

    const again = await loadAgent(fixture('custom-instance.yaml')).catch((e: unknown) => e as Error);
    expect(again).toBeInstanceOf(Error);
    expect((again as Error).message).toContain(
      "custom-instance.yaml:4: sub_agents[0]: the module's agent 'Ready' already belongs to agent 'WithReadyMade'",
    );
  });

  it('loads a module file or a directory holding agent.yml as the root', async () => {
    const fromModule = await loadAgent(fixture('steps/upper.js'));
    expect(fromModule).toBeInstanceOf(FunctionAgent);
    expect(fromModule.name).toBe('Upper');
    const fromDirectory = await loadAgent(fixture('dir-agent'));
    expect(fromDirectory.name).toBe('FromDirectory');
  });
});
