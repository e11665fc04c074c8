import { describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent, SequentialAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

describe('smoke', () => {
  it('runs CityInfo', async () => {
    const model = new ScriptedModel(['Paris', 'Paris is lovely.']);
    const a = new LlmAgent({
      name: 'AgentA',
      model,
      instruction: 'Find the capital of France.',
      outputKey: 'capital_city',
    });
    const b = new LlmAgent({ name: 'AgentB', model, instruction: 'Tell me about the city stored in {capital_city}.' });
    const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'CityInfo', subAgents: [a, b] }) });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'go' });
    expect(result.status).toBe('completed');
    expect(result.state.capital_city).toBe('Paris');
    expect(model.requests[1]!.config.systemInstruction).toContain('Paris');
    expect(result.output).toBe('Paris is lovely.');
  });
});
