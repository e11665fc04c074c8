import { describe, expect, it } from 'vitest';
import { LlmAgent, ParallelAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce, texts } from '../helpers.js';

// [bug elsewhere] branches were compared as string prefixes, so `agent_1` saw `agent_10`'s history.
describe('regression: branches compare whole segments', () => {
  it('agent_1 never sees agent_10 (or any sibling) in its history', async () => {
    const models = new Map<string, ScriptedModel>();
    const agents = Array.from({ length: 11 }, (_, i) => {
      const model = new ScriptedModel([`answer ${i}`, `second ${i}`]);
      models.set(`agent_${i}`, model);
      return new LlmAgent({ name: `agent_${i}`, model });
    });
    const parallel = new ParallelAgent({ name: 'P', subAgents: agents });
    const first = await runOnce(parallel, 'round one');
    await first.runner.run({ userId: 'u', sessionId: first.sessionId, newMessage: 'round two' });
    const seen = texts(models.get('agent_1')!.requests[1]!.contents);
    expect(seen).toEqual(['round one', 'answer 1', 'round two']);
    expect(seen.join(' ')).not.toContain('answer 10');
  });
});
