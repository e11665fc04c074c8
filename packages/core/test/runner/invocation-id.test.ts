import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  FunctionAgent,
  InMemoryRunner,
  InvocationExistsError,
  RunDrainedError,
  SequentialAgent,
} from '@troupe/core';

function pipeline(started: string[], onB?: () => void) {
  const step = (name: string, hook?: () => void) =>
    new FunctionAgent({
      name,
      run: () => {
        started.push(name);
        hook?.();
        return name;
      },
    });
  return new SequentialAgent({ name: 'Job', subAgents: [step('a'), step('b', onB), step('c')] });
}

describe('caller-chosen invocation ids', () => {
  it('every event of the run carries the chosen id', async () => {
    const runner = new InMemoryRunner({ agent: pipeline([]) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go', invocationId: 'job-42' });
    expect(result.status).toBe('completed');
    const stored = (await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    }))!;
    expect(new Set(stored.events.map((e) => e.invocationId))).toEqual(new Set(['job-42']));
  });

  it('a second run with an id the session holds fails with InvocationExistsError and stores nothing', async () => {
    const started: string[] = [];
    const runner = new InMemoryRunner({ agent: pipeline(started) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go', invocationId: 'job-42' });
    const before = (await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    }))!;

    const again = runner.run({ userId: 'u', sessionId: session.id, newMessage: 'retry', invocationId: 'job-42' });
    await expect(again).rejects.toBeInstanceOf(InvocationExistsError);
    await expect(again).rejects.toMatchObject({
      code: 'INVOCATION_EXISTS',
      message: expect.stringContaining("invocation 'job-42'"),
    });
    const after = (await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    }))!;
    expect(after.events).toEqual(before.events);
    expect(started).toEqual(['a', 'b', 'c']);
    // The session was given back: another id runs.
    expect(
      (await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'next', invocationId: 'job-43' })).status,
    ).toBe('completed');
  });

  it('resume({ invocationId }) continues the chosen invocation after a drain', async () => {
    const started: string[] = [];
    const controller = new AbortController();
    let drain = true;
    const runner = new InMemoryRunner({
      agent: pipeline(started, () => {
        if (drain) controller.abort(new RunDrainedError());
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const first = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'go',
      invocationId: 'job-7',
      abortSignal: controller.signal,
    });
    expect(first.status).toBe('cancelled');
    drain = false;
    const resumed = await runner.resume({ userId: 'u', sessionId: session.id, invocationId: 'job-7' });
    expect(resumed.status).toBe('completed');
    expect(resumed.events.every((e) => e.invocationId === 'job-7')).toBe(true);
    expect(started).toEqual(['a', 'b', 'b', 'c']);
  });

  it.each([[''], ['has space'], ['x'.repeat(129)], ['slash/no'], [42]])(
    'rejects the id %j with an error naming it and the rule',
    async (id) => {
      const runner = new InMemoryRunner({ agent: pipeline([]) });
      const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
      const run = runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go', invocationId: id as string });
      await expect(run).rejects.toBeInstanceOf(ConfigurationError);
      await expect(run).rejects.toThrow(/invocationId .* 1 to 128 characters/);
      expect(
        (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!
          .events,
      ).toEqual([]);
    },
  );
});

describe('an answer-less resume of a paused invocation', () => {
  it('is refused and stores nothing', async () => {
    const { FunctionTool, LlmAgent } = await import('@troupe/core');
    const { ScriptedModel } = await import('@troupe/core/testing');
    const pay = new FunctionTool({
      name: 'pay',
      description: 'pays',
      requireConfirmation: true,
      execute: () => ({ ok: true }),
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'Cashier',
        model: new ScriptedModel([{ functionCalls: [{ name: 'pay', args: {} }] }]),
        tools: [pay],
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'pay' });
    expect(paused.status).toBe('interrupted');
    const before = (await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    }))!.events;
    for (const attempt of [{}, { invocationId: paused.invocationId }, { responses: {} }]) {
      await expect(runner.resume({ userId: 'u', sessionId: session.id, ...attempt })).rejects.toThrow(/answered none/);
    }
    expect(
      (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!.events,
    ).toEqual(before);
  });
});
