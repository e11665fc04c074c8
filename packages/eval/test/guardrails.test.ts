import { describe, expect, it } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { evaluate } from '@troupe/eval';

describe('evaluate: a run a guardrail blocks', () => {
  it('fails the case, naming the guardrail, and skips its later turns', async () => {
    const guarded = () =>
      new LlmAgent({
        name: 'Tutor',
        instruction: 'x',
        model: new ScriptedModel(['never']),
        inputGuardrails: [{ name: 'no_homework', blocking: true, check: () => ({ tripwire: true }) }],
      });
    const report = await evaluate({
      agent: guarded,
      evalSet: {
        id: 'blocked',
        cases: [
          {
            id: 'two-turns',
            turns: [
              { user: 'homework', response: 'hello' },
              { user: 'again', response: 'hello' },
            ],
          },
        ],
      },
    });
    const [result] = report.cases;
    expect(result!.passed).toBe(false);
    expect(result!.error).toMatch(/^Turn 1: a guardrail blocked the run: Guardrail 'no_homework' tripped/);
    expect(result!.turns.map((t) => t.status)).toEqual(['blocked', 'skipped']);
  });
});
