import {
  ConfigurationError,
  FunctionTool,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type EvictionReason,
  type LlmRequest,
  type SessionKey,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';

const key = (sessionId: string): SessionKey => ({ appName: 'app', userId: 'u', sessionId });

function bounded(options: { maxSessions?: number; idleTtlMs?: number }) {
  const evicted: [string, EvictionReason][] = [];
  const store = new InMemorySessionService({
    ...options,
    onEvict: ({ sessionId }, reason) => evicted.push([sessionId, reason]),
  });
  return { store, evicted };
}

async function exists(store: InMemorySessionService, sessionId: string): Promise<boolean> {
  return (await store.getSession(key(sessionId))) !== undefined;
}

describe('InMemorySessionService with a bound', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('maxSessions drops the least recently used idle sessions, reading or writing one counts as use', async () => {
    const { store, evicted } = bounded({ maxSessions: 3 });
    for (const id of ['a', 'b', 'c']) await store.createSession({ ...key(id), sessionId: id });
    // 'a' is read, so 'b' is now the least recently used.
    await store.getSession(key('a'));
    await store.createSession({ ...key('d'), sessionId: 'd' });
    expect(evicted).toEqual([['b', 'maxSessions']]);
    expect(store.sessionCount).toBe(3);
    expect(await exists(store, 'b')).toBe(false);
    for (const id of ['a', 'c', 'd']) expect(await exists(store, id)).toBe(true);
  });

  it('never drops a running session, nor a paused one, nor one with a queued run; they go once idle', async () => {
    const { store, evicted } = bounded({ maxSessions: 2 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const model = new ScriptedModel([
      // The first run waits inside its model call: its lease is held meanwhile.
      async (_request: LlmRequest) => {
        started();
        await held;
        return 'Done.';
      },
      { functionCalls: [{ name: 'transfer_money', args: { amount: 10 } }] },
    ]);
    const transfer = new FunctionTool({
      name: 'transfer_money',
      description: 'Moves money.',
      parameters: { type: 'object', properties: { amount: { type: 'number' } } },
      requireConfirmation: true,
      execute: () => ({ ok: true }),
    });
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({ name: 'Bank', model, tools: [transfer] }),
      sessionService: store,
    });
    await store.createSession({ ...key('busy'), sessionId: 'busy' });
    await store.createSession({ ...key('paused'), sessionId: 'paused' });
    const run = runner.run({ userId: 'u', sessionId: 'busy', newMessage: 'Wait.' });
    await running;
    const pause = await runner.run({ userId: 'u', sessionId: 'paused', newMessage: 'Send 10.' });
    expect(pause.status).toBe('interrupted');
    await store.createSession({ ...key('queued'), sessionId: 'queued' });
    await store.createRun({ ...key('queued'), runId: 'r1', request: { newMessage: 'Later.' } });

    // Over the bound, but every session is busy: none is dropped.
    await store.createSession({ ...key('new'), sessionId: 'new' });
    expect(evicted).toEqual([]);
    expect(store.sessionCount).toBe(4);

    release();
    expect((await run).status).toBe('completed');
    // 'busy' ended its run: the next create drops it (and 'new', idle and older than the newest).
    await store.createSession({ ...key('newer'), sessionId: 'newer' });
    expect(evicted.map(([id]) => id)).toContain('busy');
    expect(await exists(store, 'paused')).toBe(true);
    expect(await exists(store, 'queued')).toBe(true);
    expect(store.sessionCount).toBe(3);
  });

  it('idleTtlMs drops sessions nobody used for that long', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T10:00:00Z'));
    const { store, evicted } = bounded({ idleTtlMs: 60_000 });
    await store.createSession({ ...key('old'), sessionId: 'old' });
    await store.createSession({ ...key('kept'), sessionId: 'kept' });
    vi.setSystemTime(new Date('2026-11-28T10:00:50Z'));
    await store.getSession(key('kept'));
    vi.setSystemTime(new Date('2026-11-28T10:01:30Z'));
    await store.createSession({ ...key('fresh'), sessionId: 'fresh' });
    expect(evicted).toEqual([['old', 'idleTtl']]);
    expect(await exists(store, 'kept')).toBe(true);
  });

  it('a dropped session takes its run records with it, and a store without a bound keeps everything', async () => {
    const { store } = bounded({ maxSessions: 1 });
    await store.createSession({ ...key('a'), sessionId: 'a' });
    const run = await store.createRun({ ...key('a'), runId: 'done', request: { newMessage: 'x' } });
    await store.updateRun(run.runId, { status: 'completed' });
    await store.createSession({ ...key('b'), sessionId: 'b' });
    expect(await store.getRun('done')).toBeUndefined();

    const unbounded = new InMemorySessionService();
    for (let i = 0; i < 50; i++) await unbounded.createSession({ ...key(`s${i}`), sessionId: `s${i}` });
    expect(unbounded.sessionCount).toBe(50);
  });

  it('bad bounds are ConfigurationErrors naming the option and the fix', () => {
    expect(() => new InMemorySessionService({ maxSessions: 0 })).toThrow(ConfigurationError);
    expect(() => new InMemorySessionService({ maxSessions: 0 })).toThrow(/maxSessions is 0; use a whole number/);
    expect(() => new InMemorySessionService({ idleTtlMs: -5 })).toThrow(/idleTtlMs is -5/);
    expect(() => new InMemoryMemoryService({ maxSessions: 1.5 })).toThrow(/InMemoryMemoryService's maxSessions is 1.5/);
  });
});

describe('InMemoryMemoryService with maxSessions', () => {
  it('keeps the memories of the most recently added sessions', async () => {
    const sessions = new InMemorySessionService();
    const memory = new InMemoryMemoryService({ maxSessions: 2 });
    for (const [id, text] of [
      ['s1', 'I live in Lisbon.'],
      ['s2', 'My dog is called Rex.'],
      ['s3', 'I play the cello.'],
    ] as const) {
      const session = await sessions.createSession({ ...key(id), sessionId: id });
      await sessions.appendEvent({
        session,
        event: {
          id: `e-${id}`,
          invocationId: `i-${id}`,
          author: 'user',
          content: { role: 'user', parts: [{ text }] },
          actions: { stateDelta: {}, artifactDelta: {} },
          timestamp: Date.now(),
        } as never,
      });
      await memory.addSessionToMemory((await sessions.getSession(key(id)))!);
    }
    const search = async (query: string) =>
      (await memory.searchMemory({ appName: 'app', userId: 'u', query })).memories.length;
    expect(await search('Lisbon')).toBe(0);
    expect(await search('Rex')).toBe(1);
    expect(await search('cello')).toBe(1);
  });
});
