import { describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent, RoutedAgent, type BaseAgent, type BaseLlm } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { abConfig, abTest, assistant, mode, rootAgent, withFallback } from './agent.js';

async function ask(agent: BaseAgent, message: string, defaultModel: BaseLlm) {
  const runner = new InMemoryRunner({ agent, defaultModel });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return {
    runner,
    sessionId: session.id,
    result: await runner.run({ userId: 'u', sessionId: session.id, newMessage: message }),
  };
}

describe('routing examples (seed 003)', () => {
  it('routes by complexity using a classifier call inside the router', async () => {
    const model = new ScriptedModel(['complex', 'Step 1: ...', 'simple', 'Paris.']);
    const first = await ask(rootAgent, 'Compare three database designs for an audit log', model);
    expect(first.result.events[0]!.actions.route).toEqual({ key: 'complex' });
    expect(first.result.output).toBe('Step 1: ...');
    expect(model.requests[0]!.contents[0]!.parts[0]).toMatchObject({
      text: expect.stringContaining("Classify this request as 'simple' or 'complex'"),
    });
    const second = await ask(rootAgent, 'Capital of France?', model);
    expect(second.result.events[0]!.actions.route).toEqual({ key: 'simple' });
    expect(model.requests[3]!.config.systemInstruction).toMatch(/simple assistant/);
  });

  it('falls back when the primary fails before answering', async () => {
    const model = new ScriptedModel([{ error: 'primary model overloaded', status: 503 }, 'fallback here']);
    const { result } = await ask(withFallback, 'hello', model);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('fallback here');
    expect(result.events[0]!.actions.route).toEqual({ key: 'fallback', reason: 'fallback after primary failed' });
    expect(model.requests[1]!.config.systemInstruction).toBe('You are the fallback agent.');
  });

  it('propagates the last error when the fallback fails too', async () => {
    const model = new ScriptedModel([
      { error: 'primary down', status: 503 },
      { error: 'fallback down', status: 503 },
    ]);
    const { result } = await ask(withFallback, 'hello', model);
    expect(result.status).toBe('failed');
    expect(result.error!.message).toMatch(/fallback down/);
  });

  it('A/B: the external config picks the agent per invocation', async () => {
    const model = new ScriptedModel(['I am Agent A.', 'I am Agent B.']);
    abConfig.selectedAgent = 'agent_a';
    const { runner, sessionId, result } = await ask(abTest, 'Who are you?', model);
    expect(result.output).toBe('I am Agent A.');
    abConfig.selectedAgent = 'agent_b';
    const next = await runner.run({ userId: 'u', sessionId, newMessage: 'And now?' });
    expect(next.output).toBe('I am Agent B.');
    expect(model.requests[1]!.config.systemInstruction).toMatch(/Agent B/);
  });

  it('planning mode switches to the read-only agent', async () => {
    const model = new ScriptedModel(['basic answer', 'plan']);
    mode.planning = false;
    await ask(assistant, 'Update the config file', model);
    mode.planning = true;
    await ask(assistant, 'Plan the migration', model);
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['read_file', 'write_file']);
    expect(model.requests[1]!.config.tools!.map((t) => t.name)).toEqual(['read_file']);
    expect(model.requests[1]!.config.systemInstruction).toMatch(/planning expert/);
    mode.planning = false;
  });

  it('agents of a RoutedAgent are its sub-agents (unique names, one parent)', () => {
    expect(
      () =>
        new RoutedAgent({
          name: 'x',
          agents: [new LlmAgent({ name: 'a' }), new LlmAgent({ name: 'a' })],
          router: () => 'a',
        }),
    ).toThrow(/two options keyed 'a'/);
  });
});
