import { describe, expect, it } from 'vitest';
import {
  FunctionTool,
  InMemoryRunner,
  InterruptResponseError,
  LlmAgent,
  SessionBusyError,
  SessionNotFoundError,
} from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import { ScriptedModel } from '@troupe/core/testing';

describe('runner.start', () => {
  it('rejects misuse before any event, and claims the session until the run ends', async () => {
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model: new ScriptedModel(['one', 'two']) }) });
    await expect(runner.start({ userId: 'u', sessionId: 'missing', newMessage: 'x' })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const events = await runner.start({ userId: 'u', sessionId: s.id, newMessage: 'x' });
    expect(isSessionBusy(runner.sessionService, runner.appName, 'u', s.id)).toBe(true);
    await expect(runner.start({ userId: 'u', sessionId: s.id, newMessage: 'y' })).rejects.toBeInstanceOf(
      SessionBusyError,
    );
    const seen: string[] = [];
    let step = await events.next();
    while (!step.done) {
      seen.push(step.value.author);
      step = await events.next();
    }
    expect(seen).toEqual(['A']);
    expect(step.value.status).toBe('completed');
    expect(isSessionBusy(runner.sessionService, runner.appName, 'u', s.id)).toBe(false);
  });

  it('returning an unstarted run gives the session back', async () => {
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'A', model: new ScriptedModel(['later']) }) });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const events = await runner.start({ userId: 'u', sessionId: s.id, newMessage: 'x' });
    await events.return(undefined as never);
    expect((await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'x' })).output).toBe('later');
  });

  it('startResume rejects a wrong answer with InterruptResponseError before anything is stored', async () => {
    const tool = new FunctionTool({ name: 't', description: 't', requireConfirmation: true, execute: () => 'ok' });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'A',
        model: new ScriptedModel([{ functionCalls: [{ name: 't', id: 'c' }] }]),
        tools: [tool],
      }),
    });
    const s = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: s.id, newMessage: 'x' });
    await expect(
      runner.startResume({ userId: 'u', sessionId: s.id, responses: { 'A:c': 'maybe' } }),
    ).rejects.toBeInstanceOf(InterruptResponseError);
    expect(isSessionBusy(runner.sessionService, runner.appName, 'u', s.id)).toBe(false);
  });
});
