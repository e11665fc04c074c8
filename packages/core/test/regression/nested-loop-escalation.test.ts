import { describe, expect, it } from 'vitest';
import { FunctionAgent, LoopAgent, SequentialAgent } from '@troupe/core';
import { runOnce } from '../helpers.js';

// [bug elsewhere] escalate ended the whole pipeline; nested 5×5 loops ran 5 times in total.
describe('regression: escalation is scoped to the nearest loop', () => {
  it('nested 5×5 loops: the inner loop escalating every time still lets the outer loop run 5 iterations', async () => {
    let innerRuns = 0;
    let outerRuns = 0;
    const inner = new LoopAgent({
      name: 'Inner',
      maxIterations: 5,
      subAgents: [
        new FunctionAgent({
          name: 'InnerStep',
          run: (_i, ctx) => {
            innerRuns++;
            if (innerRuns % 5 === 0) ctx.actions.escalate = true;
            return innerRuns;
          },
        }),
      ],
    });
    const outerStep = new FunctionAgent({ name: 'OuterStep', run: () => ++outerRuns });
    const outer = new LoopAgent({ name: 'Outer', maxIterations: 5, subAgents: [inner, outerStep] });
    const after = new FunctionAgent({ name: 'After', run: () => 'pipeline continued' });
    const result = await runOnce(new SequentialAgent({ name: 'Pipeline', subAgents: [outer, after] }), 'go');
    expect(innerRuns).toBe(25);
    expect(outerRuns).toBe(5);
    expect(result.output).toBe('pipeline continued');
    const outerEnd = result.events.find((e) => e.author === 'Outer' && e.actions.endOfAgent)!;
    expect(outerEnd.actions.agentState).toEqual({ stopReason: 'maxIterations', iterations: 5 });
    expect(
      result.events.filter((e) => e.author === 'Inner' && e.actions.agentState?.stopReason === 'escalated'),
    ).toHaveLength(5);
  });
});
