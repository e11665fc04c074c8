import { describe, expect, it } from 'vitest';
import { resolveRetry as resolve, retryDelay, type RetryConfig } from '../../src/workflow/retry-config.js';

const resolveRetry = (node: string, config: RetryConfig) => resolve(node, config)!;

// ADK's retry delay (google/adk-js workflow/utils/retry_utils.ts): initialDelay × backoffFactor^(try − 1),
// capped at maxDelay, then moved by a uniform offset within ± jitter × that delay, never below 0.
describe('a retried node waits as ADK waits', () => {
  const retry = resolveRetry('n', { initialDelayMs: 1000, maxDelayMs: 60_000, backoffFactor: 2, jitter: 1 });

  it('without jitter: initial × factor^(try − 1), capped at maxDelayMs', () => {
    const plain = resolveRetry('n', { initialDelayMs: 1000, maxDelayMs: 5000, backoffFactor: 2, jitter: 0 });
    expect([1, 2, 3, 4].map((attempt) => retryDelay(plain, attempt))).toEqual([1000, 2000, 4000, 5000]);
  });

  it('jitter moves the wait by up to ± jitter × the wait (jitter 1: anywhere from 0 to twice it)', () => {
    expect(retryDelay(retry, 2, () => 0)).toBe(0);
    expect(retryDelay(retry, 2, () => 0.5)).toBe(2000);
    expect(retryDelay(retry, 2, () => 0.999)).toBeCloseTo(3996, 0);
    const tenth = resolveRetry('n', { initialDelayMs: 1000, jitter: 0.1 });
    expect(retryDelay(tenth, 1, () => 0)).toBeCloseTo(900, 6);
    expect(retryDelay(tenth, 1, () => 1)).toBeCloseTo(1100, 6);
  });
});
