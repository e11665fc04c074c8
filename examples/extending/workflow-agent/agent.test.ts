import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  ModelError,
  loadAgent,
  type BaseAgent,
  type RunResult,
} from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { createApp, type AgentGraphNode } from '@troupe/server';
import { rootAgent } from './agent.js';
import { RetryAgent } from './retry-agent.js';

const overloaded: ScriptedReply = { error: 'overloaded', status: 503 };

async function run(agent: BaseAgent, replies: ScriptedReply[]): Promise<{ result: RunResult; model: ScriptedModel }> {
  const model = new ScriptedModel(replies);
  const runner = new InMemoryRunner({ agent, defaultModel: model });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return {
    result: await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'What is the capital of France?' }),
    model,
  };
}

const steady = (answerer: LlmAgent, maxAttempts = 3) =>
  new RetryAgent({ name: 'Steady', maxAttempts, subAgents: [answerer] });

describe('RetryAgent, a workflow agent written outside the packages', () => {
  it('runs its agent again after a model error and answers', async () => {
    const { result, model } = await run(rootAgent, [overloaded, overloaded, 'Paris is the capital of France.']);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Paris is the capital of France.');
    expect(model.callCount).toBe(3);
  });

  it('gives up after maxAttempts with the last model error', async () => {
    const { result, model } = await run(steady(new LlmAgent({ name: 'Answerer' }), 2), [overloaded, overloaded]);
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(ModelError);
    expect(model.callCount).toBe(2);
  });

  it('does not retry once its agent has produced an event (a retry would repeat the tool call)', async () => {
    const booked: string[] = [];
    const book = new FunctionTool({ name: 'book', description: 'Books the trip.', execute: () => booked.push('trip') });
    const { result, model } = await run(steady(new LlmAgent({ name: 'Booker', tools: [book] })), [
      { functionCalls: [{ name: 'book' }] },
      overloaded,
    ]);
    expect(result.status).toBe('failed');
    expect(model.callCount).toBe(2);
    expect(booked).toEqual(['trip']);
  });

  it('rejects options it cannot use, naming the option, the value and the fix', () => {
    expect(() => new RetryAgent({ name: 'Empty' })).toThrow(
      "RetryAgent 'Empty' has 0 sub-agents; give it exactly one, the agent to retry",
    );
    expect(() => steady(new LlmAgent({ name: 'Answerer' }), 0)).toThrow(
      "RetryAgent 'Steady' has maxAttempts 0; use a whole number of at least 1 (default 3).",
    );
  });

  it("shows in the server's graph with its own kind and its agent below it, with no edit to the server", async () => {
    const app = createApp({ apps: { steady: rootAgent } });
    const graph = (await (await app.request('/apps/steady/graph')).json()) as AgentGraphNode;
    expect(graph).toEqual({
      name: 'Steady',
      type: 'retry',
      class: 'RetryAgent',
      description: 'Answers, trying again when the model is unavailable.',
      tools: [],
      children: [{ name: 'Answerer', type: 'llm', class: 'LlmAgent', description: '', children: [], tools: [] }],
    });
  });

  it('loads from a definition file whose type: is the module of the class', async () => {
    const loaded = await loadAgent(fileURLToPath(new URL('./steady.yaml', import.meta.url)));
    expect(loaded).toBeInstanceOf(RetryAgent);
    expect((loaded as RetryAgent).maxAttempts).toBe(3);
    const graph = (await (
      await createApp({ apps: { steady: loaded } }).request('/apps/steady/graph')
    ).json()) as AgentGraphNode;
    expect(graph).toMatchObject({ name: 'Steady', type: 'retry', children: [{ name: 'Answerer', type: 'llm' }] });
    const { result } = await run(loaded, [overloaded, 'Paris.']);
    expect(result.output).toBe('Paris.');
  });
});
