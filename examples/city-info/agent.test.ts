import { describe, expect, it } from 'vitest';
import { InMemoryRunner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

describe('city-info example', () => {
  it("AgentA's answer lands in state.capital_city and AgentB's instruction reads it", async () => {
    const model = new ScriptedModel([
      'Paris',
      'Paris is the capital of France, known for the Louvre and the Eiffel Tower.',
    ]);
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });

    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'France' });

    expect(result.status).toBe('completed');
    expect(result.state.capital_city).toBe('Paris');
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    });
    expect(stored!.state.capital_city).toBe('Paris');
    expect(model.requests[1]!.config.systemInstruction).toBe(
      'Tell me about the city stored in state: Paris. Two or three sentences.',
    );
    expect(result.output).toBe('Paris is the capital of France, known for the Louvre and the Eiffel Tower.');
    model.assertDone();
  });
});
