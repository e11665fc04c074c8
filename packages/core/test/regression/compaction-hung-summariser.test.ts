import { expect, it } from 'vitest';
import { BaseLlm, COMPACTION_FAILED, InMemoryRunner, LlmAgent, type LlmResponse } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

// Bug: the summariser was called without a time limit, so one that never answered (and ignored the
// abort signal) kept the finished run's session claimed for ever: every later turn was SESSION_BUSY.
class NeverAnswers extends BaseLlm {
  constructor() {
    super('stuck-summariser');
  }
  // eslint-disable-next-line require-yield
  async *generateContentAsync(): AsyncGenerator<LlmResponse> {
    await new Promise(() => undefined);
  }
}

it('a summariser that never answers is given up after compaction.timeoutMs: the session is free and the failure is recorded', async () => {
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: 'Guide', model: new ScriptedModel(['one', 'two']) }),
    compaction: { everyInvocations: 1, summarizer: new NeverAnswers(), timeoutMs: 50 },
  });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const first = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'hi' });
  expect(first.status).toBe('completed');
  // The session was given back: the next turn runs (it would be SESSION_BUSY while claimed).
  const second = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'again' });
  expect(second.status).toBe('completed');
  const stored = (await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  }))!;
  const failures = stored.events.filter((e) => e.errorCode === COMPACTION_FAILED);
  expect(failures.length).toBeGreaterThanOrEqual(1);
  expect(failures[0]!.errorMessage).toContain('compaction.timeoutMs (50 ms)');
});

it('compaction.timeoutMs must be a whole number of milliseconds of at least 1', () => {
  expect(
    () =>
      new InMemoryRunner({
        agent: new LlmAgent({ name: 'Guide', model: new ScriptedModel([]) }),
        compaction: { everyInvocations: 1, timeoutMs: 0 },
      }),
  ).toThrow(/timeoutMs must be a whole number of milliseconds of at least 1; got 0/);
});
