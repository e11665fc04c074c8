import { describe, expect, it } from 'vitest';
import {
  FunctionAgent,
  InMemorySessionService,
  LeaseLostError,
  Runner,
  SequentialAgent,
  SessionBusyError,
  type AppendEventParams,
  type BaseAgent,
} from '@troupe/core';
import { type LeaseParams, type SessionLease } from '@troupe/core/stores';
import { deferred, waitFor } from '../wait.js';

/**
 * The same storage seen by "another process": a separate service object, so the runner's
 * in-process lock does not apply and only the store's lease keeps the two apart. Renewals can be
 * frozen, as for a process stopped with SIGSTOP.
 */
class OtherProcess extends InMemorySessionService {
  frozen = false;
  constructor(private readonly store: InMemorySessionService) {
    super();
  }
  override createSession(p: Parameters<InMemorySessionService['createSession']>[0]) {
    return this.store.createSession(p);
  }
  override getSession(p: Parameters<InMemorySessionService['getSession']>[0]) {
    return this.store.getSession(p);
  }
  override appendEvent(p: AppendEventParams) {
    return this.store.appendEvent(p);
  }
  override leaseSession(p: LeaseParams) {
    return this.store.leaseSession(p);
  }
  override renewLease(lease: SessionLease, ttlMs: number) {
    return this.frozen ? new Promise<SessionLease>(() => undefined) : this.store.renewLease(lease, ttlMs);
  }
  override releaseLease(lease: SessionLease) {
    return this.store.releaseLease(lease);
  }
}

function slowPipeline(wait: Promise<void>, started: string[]): BaseAgent {
  const step = (name: string, hold?: Promise<void>) =>
    new FunctionAgent({
      name,
      run: async () => {
        started.push(name);
        await hold;
        return name;
      },
    });
  return new SequentialAgent({ name: 'Turn', subAgents: [step('first', wait), step('second')] });
}

describe('session leases through the runner', () => {
  it('a second message from another process gets SessionBusyError; the running turn completes untouched', async () => {
    const store = new InMemorySessionService();
    const hold = deferred();
    const started: string[] = [];
    const a = new Runner({ appName: 'app', agent: slowPipeline(hold.promise, started), sessionService: store });
    const b = new Runner({
      appName: 'app',
      agent: slowPipeline(Promise.resolve(), []),
      sessionService: new OtherProcess(store),
    });
    const session = await store.createSession({ appName: 'app', userId: 'u' });

    const running = a.run({ userId: 'u', sessionId: session.id, newMessage: 'one' });
    await waitFor(() => started.includes('first'), 'the first turn to be working');
    await expect(b.run({ userId: 'u', sessionId: session.id, newMessage: 'two' })).rejects.toBeInstanceOf(
      SessionBusyError,
    );
    hold.resolve();
    const result = await running;
    expect(result.status).toBe('completed');
    const events = (await store.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
    expect(events.map((e) => e.output ?? e.author)).toEqual(['user', 'first', 'second']);
    expect(events.some((e) => e.errorCode)).toBe(false);
    // Released at the end: the other process can run now.
    expect((await b.run({ userId: 'u', sessionId: session.id, newMessage: 'two' })).status).toBe('completed');
  });

  it('a frozen owner whose lease was taken over stores nothing when it wakes (LeaseLostError); the new owner resumes', async () => {
    const store = new InMemorySessionService();
    const frozenView = new OtherProcess(store);
    frozenView.frozen = true;
    const hold = deferred();
    const started: string[] = [];
    const a = new Runner({
      appName: 'app',
      agent: slowPipeline(hold.promise, started),
      sessionService: frozenView,
      leaseTtlMs: 40,
    });
    const b = new Runner({
      appName: 'app',
      agent: slowPipeline(Promise.resolve(), started),
      sessionService: store,
      leaseTtlMs: 40,
    });
    const session = await store.createSession({ appName: 'app', userId: 'u' });

    const frozen = a.run({ userId: 'u', sessionId: session.id, newMessage: 'one', invocationId: 'inv-1' });
    await waitFor(() => started.includes('first'), 'the frozen run to be working');
    // The other process takes over as soon as the frozen owner's 40 ms lease has run out.
    let resumed: Awaited<ReturnType<Runner['resume']>> | undefined;
    await waitFor(async () => {
      try {
        resumed = await b.resume({ userId: 'u', sessionId: session.id, invocationId: 'inv-1' });
        return true;
      } catch (error) {
        if (error instanceof SessionBusyError) return false;
        throw error;
      }
    }, "the frozen owner's lease to expire");
    expect(resumed!.status).toBe('completed');

    hold.resolve();
    const late = await frozen;
    expect(late.status).toBe('failed');
    expect(late.error).toBeInstanceOf(LeaseLostError);
    const events = (await store.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
    expect(events.map((e) => e.output ?? e.errorCode ?? e.author)).toEqual(['user', 'first', 'second']);
    expect(started).toEqual(['first', 'first', 'second']);
  });

  it('the lease is released when a run ends, fails, pauses or is given back before starting', async () => {
    const store = new InMemorySessionService();
    const failing = new FunctionAgent({
      name: 'Boom',
      run: () => {
        throw new Error('boom');
      },
    });
    const runner = new Runner({ appName: 'app', agent: failing, sessionService: store });
    const session = await store.createSession({ appName: 'app', userId: 'u' });
    const key = { appName: 'app', userId: 'u', sessionId: session.id };

    expect((await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'x' })).status).toBe('failed');
    const probe = await store.leaseSession({ ...key, owner: 'probe', ttlMs: 10_000 });
    expect(probe).toBeDefined();
    await store.releaseLease(probe!);

    const events = await runner.start({ userId: 'u', sessionId: session.id, newMessage: 'y' });
    expect(await store.leaseSession({ ...key, owner: 'probe', ttlMs: 10_000 })).toBeUndefined();
    await events.return(undefined as never);
    expect(await store.leaseSession({ ...key, owner: 'probe', ttlMs: 10_000 })).toBeDefined();
  });

  it('a crashed owner blocks the session only until its lease expires', async () => {
    const store = new InMemorySessionService();
    const session = await store.createSession({ appName: 'app', userId: 'u' });
    // A process that died holding the lease.
    await store.leaseSession({ appName: 'app', userId: 'u', sessionId: session.id, owner: 'dead', ttlMs: 60 });
    const runner = new Runner({
      appName: 'app',
      agent: new FunctionAgent({ name: 'Echo', run: () => 'hi' }),
      sessionService: store,
    });
    await expect(runner.run({ userId: 'u', sessionId: session.id, newMessage: 'x' })).rejects.toBeInstanceOf(
      SessionBusyError,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'x' })).status).toBe('completed');
  });

  it('rejects an unusable leaseTtlMs naming the option', () => {
    expect(
      () =>
        new Runner({
          appName: 'app',
          agent: new FunctionAgent({ name: 'E', run: () => 1 }),
          sessionService: new InMemorySessionService(),
          leaseTtlMs: 0,
        }),
    ).toThrow(/leaseTtlMs 0/);
  });
});
