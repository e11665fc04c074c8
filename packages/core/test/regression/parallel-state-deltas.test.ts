import { describe, expect, it } from 'vitest';
import { LlmAgent, ParallelAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

// [bug elsewhere] state deltas of parallel branches were dropped when branches finished together.
describe('regression: parallel deltas are never dropped', () => {
  it('100 LLM branches finishing at the same moment all store their outputKey', async () => {
    const agents = Array.from(
      { length: 100 },
      (_, i) =>
        new LlmAgent({
          name: `Fetch${i}`,
          outputKey: `out${i}`,
          model: new ScriptedModel([{ delayMs: 5, reply: `value ${i}` }]),
        }),
    );
    const result = await runOnce(new ParallelAgent({ name: 'Fan', subAgents: agents }), 'go');
    expect(result.status).toBe('completed');
    for (let i = 0; i < 100; i++) expect(result.state[`out${i}`]).toBe(`value ${i}`);
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(Object.keys(session!.state).filter((k) => k.startsWith('out'))).toHaveLength(100);
  });
});
