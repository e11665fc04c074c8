import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { tempDir, troupe } from '../helpers.js';

// `troupe run examples/guardrails` streamed the answer its no_card_numbers guardrail exists to hide,
// then said the run was blocked. The agent now holds its streamed text until the guardrail passed.

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

it('troupe run never prints an answer its output guardrail blocks', async () => {
  const cwd = tempDir('troupe-guardrail-stream-');
  const result = await troupe(
    cwd,
    'run',
    join(repo, 'examples', 'guardrails'),
    '--input',
    'My card is 4111 1111 1111 1111, what is it?',
  );
  expect(result.code).toBe(ExitCode.blocked);
  expect(result.err).toContain("Guardrail 'no_card_numbers' tripped");
  expect(result.out + result.err).not.toContain('4111');
});
