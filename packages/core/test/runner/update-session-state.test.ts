import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  SessionBusyError,
  SessionNotFoundError,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

describe('runner.updateSessionState (ADK PATCH session)', () => {
  it('stores the delta as one user event without content; state, user: keys and the next run see it', async () => {
    const runner = new InMemoryRunner({
      agent: new FunctionAgent({ name: 'Echo', run: (_input, ctx) => String(ctx.state.get('city')) }),
    });
    const session = await runner.sessionService.createSession({
      appName: runner.appName,
      userId: 'u1',
      state: { keep: true },
    });

    const updated = await runner.updateSessionState({
      userId: 'u1',
      sessionId: session.id,
      stateDelta: { city: 'Lyon', 'user:lang': 'fr' },
    });
    expect(updated.state).toEqual({ keep: true, city: 'Lyon', 'user:lang': 'fr' });
    expect(updated.events).toHaveLength(1);
    expect(updated.events[0]).toMatchObject({
      author: 'user',
      actions: { stateDelta: { city: 'Lyon', 'user:lang': 'fr' } },
    });
    expect(updated.events[0]!.content).toBeUndefined();
    expect(updated.events[0]!.invocationId).toMatch(/^p-/);

    const other = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u1' });
    expect(other.state['user:lang']).toBe('fr');
    expect((await runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'where?' })).output).toBe('Lyon');
  });

  it('refuses temp: keys, bad deltas and unknown sessions, storing nothing', async () => {
    const runner = new InMemoryRunner({ agent: new FunctionAgent({ name: 'Echo', run: () => 'hi' }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u1' });
    await expect(
      runner.updateSessionState({ userId: 'u1', sessionId: session.id, stateDelta: { 'temp:x': 1 } }),
    ).rejects.toThrow(/'temp:x'.*live for one invocation/);
    await expect(
      runner.updateSessionState({
        userId: 'u1',
        sessionId: session.id,
        stateDelta: [] as unknown as Record<string, unknown>,
      }),
    ).rejects.toBeInstanceOf(ConfigurationError);
    await expect(
      runner.updateSessionState({ userId: 'u1', sessionId: 'missing', stateDelta: { a: 1 } }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u1',
      sessionId: session.id,
    });
    expect(stored!.events).toEqual([]);
  });

  it('is refused with SessionBusyError while an invocation runs on the session', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const runner = new InMemoryRunner({
      agent: new FunctionAgent({
        name: 'Slow',
        run: async () => {
          started();
          await held;
          return 'done';
        },
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u1' });
    const run = runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'go' });
    await running;
    await expect(
      runner.updateSessionState({ userId: 'u1', sessionId: session.id, stateDelta: { a: 1 } }),
    ).rejects.toBeInstanceOf(SessionBusyError);
    release();
    expect((await run).status).toBe('completed');
    expect(
      (await runner.updateSessionState({ userId: 'u1', sessionId: session.id, stateDelta: { a: 1 } })).state,
    ).toEqual({ a: 1 });
  });

  it('on a paused session the update joins the paused invocation: its interrupt stays open and resume runs the tool once', async () => {
    const sent: number[] = [];
    const transfer = new FunctionTool({
      name: 'transfer',
      description: 'Sends money.',
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }) => {
        sent.push(amount);
        return { ok: true };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'transfer', args: { amount: 5 }, id: 't1' }] },
      'Sent.',
    ]);
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'Bank', model, tools: [transfer] }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u1' });
    const paused = await runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'send 5' });
    expect(paused.status).toBe('interrupted');

    const updated = await runner.updateSessionState({
      userId: 'u1',
      sessionId: session.id,
      stateDelta: { note: 'checked' },
    });
    expect(updated.events.at(-1)!.invocationId).toBe(paused.invocationId);
    const done = await runner.resume({
      userId: 'u1',
      sessionId: session.id,
      responses: { [paused.interrupts[0]!.id]: true },
    });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Sent.');
    expect(sent).toEqual([5]);
  });
});
