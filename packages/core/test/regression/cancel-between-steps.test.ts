import { expect, it } from 'vitest';
import { FunctionAgent, InMemoryRunner, SequentialAgent } from '@troupe/core';
import { deferred } from '../wait.js';

// Reported: runner.run({ abortSignal }) aborted at 150 ms on a SequentialAgent of five 100 ms
// FunctionAgents returned 'completed' after 500 ms with all five steps run, because only model and
// tool calls looked at the signal.
it('an abort between pipeline steps ends the run cancelled; no later step starts', async () => {
  const started: number[] = [];
  // Step 2 is aborted while it works and ignores the signal (as a FunctionAgent may): it finishes
  // only when the test releases it, after the run has ended.
  const step2Working = deferred();
  const release = deferred();
  const step2Returned = deferred();
  const steps = [1, 2, 3, 4, 5].map(
    (n) =>
      new FunctionAgent({
        name: `step${n}`,
        run: async () => {
          started.push(n);
          if (n === 2) {
            step2Working.resolve();
            await release.promise;
            queueMicrotask(() => step2Returned.resolve());
          }
          return `done ${n}`;
        },
      }),
  );
  const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'Five', subAgents: steps }) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const controller = new AbortController();
  void step2Working.promise.then(() => controller.abort());

  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: 'go',
    abortSignal: controller.signal,
  });
  expect(result.status).toBe('cancelled');
  // Let step 2 finish; one turn of the event loop later, a step that would still start has started.
  release.resolve();
  await step2Returned.promise;
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([1, 2]);
  const stored = (await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  }))!.events;
  expect(stored.map((e) => e.output ?? e.errorCode ?? e.author)).toEqual(['user', 'done 1', 'CANCELLED']);
});
