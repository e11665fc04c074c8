import { describe, expect, it } from 'vitest';
import { LlmAgent, TemplateError } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

describe('instruction templating', () => {
  it('inserts state, scoped keys, optional keys and literal braces', async () => {
    const model = new ScriptedModel(['ok']);
    const agent = new LlmAgent({
      name: 'Writer',
      model,
      instruction:
        'Topic {topic}; user {user:name}; app {app:mode}; temp {temp:t?}; opt [{missing?}]; json {{"a": 1}}; obj {obj}',
    });
    const result = await runOnce(agent, 'go', {
      state: { topic: 'cats', 'user:name': 'Ann', 'app:mode': 'fast', obj: { x: 1 } },
    });
    expect(result.status).toBe('completed');
    expect(model.requests[0]!.config.systemInstruction).toBe(
      'Topic cats; user Ann; app fast; temp ; opt []; json {"a": 1}; obj {"x":1}',
    );
  });

  it('a missing required key fails the run with TemplateError naming the agent and the key', async () => {
    const agent = new LlmAgent({ name: 'Writer', model: new ScriptedModel([]), instruction: 'Write about {topic}.' });
    const result = await runOnce(agent, 'go');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(TemplateError);
    expect(result.error!.message).toMatch(/Agent 'Writer'.*'topic'.*\{topic\?\}/);
    expect(result.events.at(-1)).toMatchObject({ errorCode: 'TEMPLATE' });
  });

  it('function instructions are not templated', async () => {
    const model = new ScriptedModel(['ok']);
    const agent = new LlmAgent({
      name: 'Writer',
      model,
      instruction: (ctx) => `Literal {topic} for ${ctx.agent.name}`,
    });
    await runOnce(agent, 'go');
    expect(model.requests[0]!.config.systemInstruction).toBe('Literal {topic} for Writer');
  });

  it('globalInstruction of the root applies to every LlmAgent before its own instruction', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Child' } }] },
      'child answer',
    ]);
    const child = new LlmAgent({ name: 'Child', instruction: 'Child rules.' });
    const root = new LlmAgent({
      name: 'Root',
      model,
      globalInstruction: 'Be polite to {name}.',
      instruction: 'Root rules.',
      subAgents: [child],
    });
    await runOnce(root, 'hi', { state: { name: 'Bo' } });
    expect(model.requests[0]!.config.systemInstruction).toMatch(/^Be polite to Bo\.\n\nRoot rules\./);
    expect(model.requests[1]!.config.systemInstruction).toMatch(/^Be polite to Bo\.\n\nChild rules\./);
  });
});
