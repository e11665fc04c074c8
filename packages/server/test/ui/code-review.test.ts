import { describe, expect, it } from 'vitest';
import type { InterruptInfo } from '@troupe/core';
import { codeToReview } from '../../ui/src/model/interrupts.js';

// The approval card of a run of code shows the code as a code block: what it reads from the interrupt.

function confirmation(payload: unknown, kind: InterruptInfo['kind'] = 'confirmation'): InterruptInfo {
  return {
    id: 'Analyst:c1',
    kind,
    agentPath: 'Analyst',
    toolCallId: 'c1',
    toolName: 'execute_code',
    args: { language: 'python', code: 'print(1)' },
    payload,
  };
}

describe('codeToReview', () => {
  it('reads the language, code, arguments and files of a code execution approval', () => {
    expect(codeToReview(confirmation({ language: 'python', code: 'print(6 * 7)' }))).toEqual({
      language: 'python',
      code: 'print(6 * 7)',
      args: [],
      files: [],
    });
    expect(
      codeToReview(confirmation({ language: 'bash', code: 'wc -l "$1"', args: ['data.csv'], files: ['data.csv'] })),
    ).toEqual({ language: 'bash', code: 'wc -l "$1"', args: ['data.csv'], files: ['data.csv'] });
  });

  it('finds no code in other interrupts', () => {
    expect(codeToReview(confirmation(undefined))).toBeUndefined();
    expect(codeToReview(confirmation({ amount: 500 }))).toBeUndefined();
    expect(codeToReview(confirmation({ language: 'python', code: 'x' }, 'input'))).toBeUndefined();
  });
});
