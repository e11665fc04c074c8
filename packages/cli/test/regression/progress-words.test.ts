import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { troupe } from '../helpers.js';

// The terminal showed nothing of a workflow's progress, and the dev UI read a PlanExecuteAgent that
// answered as "Loop stopped: reached its maximum of iterations". Now `troupe run` words each
// agent's progress and stop reason as the dev UI does (core's describeProgress), by the agent's kind.

const fixture = fileURLToPath(new URL('../fixtures/errands.ts', import.meta.url));

it("words each agent's progress and stop reason in the transcript: the loop's maximum, the plan's answer", async () => {
  const result = await troupe(process.cwd(), 'run', fixture, '--memory', '--input', 'Get ready');
  expect(result.code, result.err).toBe(ExitCode.ok);
  const lines = result.out.split('\n').map((line) => line.trim());
  expect(lines).toContain('Drafts: · Loop iteration 1: step 1 done');
  expect(lines).toContain('· Loop stopped: reached its maximum of 2 iterations');
  expect(lines).toContain('Trip: Step 1: Pack');
  expect(lines).toContain('· Plan: step 1 of 2 next: Pack');
  expect(lines).toContain('Trip: · Plan: step 1 done (Pack), replanning');
  expect(lines).toContain('· Plan answered after 1 step');
  expect(result.out).toContain('All set for the trip.');
  expect(result.out).not.toMatch(/Trip:[^\n]*Loop stopped/);
});
