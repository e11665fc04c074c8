import { expect, it } from 'vitest';
import { FunctionAgent, InMemoryRunner, SequentialAgent } from '@troupe/core';

// Reported: runner.run({ abortSignal }) aborted at 150 ms on a SequentialAgent of five 100 ms
// FunctionAgents returned 'completed' after 500 ms with all five steps run, because only model and
// tool calls looked at the signal.
it('an abort between pipeline steps ends the run cancelled; no later step starts', async () => {
  const started: number[] = [];
  const steps = [1, 2, 3, 4, 5].map(
    (n) =>
      new FunctionAgent({
        name: `step${n}`,
        run: async () => {
          started.push(n);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return `done ${n}`;
        },
      }),
  );
  const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'Five', subAgents: steps }) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 150);

  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: 'go',
    abortSignal: controller.signal,
  });
  expect(result.status).toBe('cancelled');
  // Let any step that would still start have its chance.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(started).toEqual([1, 2]);
  const stored = (await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  }))!.events;
  expect(stored.map((e) => e.output ?? e.errorCode ?? e.author)).toEqual(['user', 'done 1', 'CANCELLED']);
});
