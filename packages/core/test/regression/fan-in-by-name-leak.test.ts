import { expect, it } from 'vitest';
import { AgentTool, FunctionAgent, InMemoryRunner, LlmAgent, ParallelAgent, SequentialAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { texts } from '../helpers.js';

// Reported: fan-in visibility was decided by agent name from a set the Runner kept for its life.
// A ParallelAgent inside an AgentTool's tree named like an agent of the main tree ('Caller') made the
// tool's inner results visible to later agents of the main tree, also in later runs on fresh sessions.
it('an AgentTool whose tree has a ParallelAgent named like a main-tree agent leaks nothing into later history', async () => {
  const secret = new FunctionAgent({ name: 'Inner', run: () => 'SECRET inner result' });
  // The tool's result (its last step's output) is all the caller's conversation may see.
  const summary = new FunctionAgent({ name: 'Summary', run: () => 'summary only' });
  const helper = new SequentialAgent({
    name: 'Helper',
    subAgents: [new ParallelAgent({ name: 'Caller', subAgents: [secret] }), summary],
  });
  const callerModel = new ScriptedModel([
    { functionCalls: [{ name: 'Helper', args: { request: 'look it up' } }] },
    'I asked the helper.',
    { functionCalls: [{ name: 'Helper', args: { request: 'again' } }] },
    'Asked again.',
  ]);
  const afterModel = new ScriptedModel(['after one', 'after two']);
  const root = new SequentialAgent({
    name: 'Root',
    subAgents: [
      new LlmAgent({ name: 'Caller', model: callerModel, tools: [new AgentTool({ agent: helper })] }),
      new LlmAgent({ name: 'After', model: afterModel }),
    ],
  });
  const runner = new InMemoryRunner({ agent: root });
  for (const _ of [1, 2]) {
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'start' });
    expect(result.status).toBe('completed');
  }
  expect(afterModel.requests).toHaveLength(2);
  afterModel.requests.forEach((request, i) => {
    const seen = texts(request.contents).join('\n');
    expect(seen).not.toContain('SECRET');
    // The caller's own turn and the tool's result as the caller saw it stay visible.
    expect(seen).toContain(i === 0 ? 'I asked the helper.' : 'Asked again.');
    expect(seen).toContain('summary only');
  });
});
