import { describe, expect, it } from 'vitest';
import {
  FunctionAgent,
  InMemorySessionService,
  Runner,
  SequentialAgent,
  SessionBusyError,
  StorageError,
  type AppendEventParams,
} from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';

/** An in-memory store whose writes can be made to fail, as a database that went away. */
class FlakyStore extends InMemorySessionService {
  down = false;
  failAfter = Infinity;
  override appendEvent(params: AppendEventParams) {
    if (this.down || this.failAfter-- <= 0) {
      this.down = true;
      return Promise.reject(new StorageError('The store is unreachable (test).'));
    }
    return super.appendEvent(params);
  }
}

describe('a run whose store went away', () => {
  it('ends failed; its error record is stored once the store is back, and the session stays claimed until then', async () => {
    const store = new FlakyStore();
    const step = (name: string) => new FunctionAgent({ name, run: () => name });
    const runner = new Runner({
      appName: 'app',
      agent: new SequentialAgent({ name: 'Job', subAgents: [step('s1'), step('s2')] }),
      sessionService: store,
    });
    const session = await store.createSession({ appName: 'app', userId: 'u' });
    store.failAfter = 2; // the user's message and s1 are stored, then the store goes down

    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(StorageError);
    expect(isSessionBusy(store, 'app', 'u', session.id)).toBe(true);
    await expect(runner.run({ userId: 'u', sessionId: session.id, newMessage: 'next' })).rejects.toBeInstanceOf(
      SessionBusyError,
    );

    store.down = false;
    store.failAfter = Infinity;
    const deadline = Date.now() + 5_000;
    while (isSessionBusy(store, 'app', 'u', session.id) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const events = (await store.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
    expect(events.map((e) => e.errorCode ?? e.output ?? e.author)).toEqual(['user', 's1', 'STORAGE']);
    expect((await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'next' })).status).toBe('completed');
  });

  it('a run whose opening message could not be stored leaves no trace', async () => {
    const store = new FlakyStore();
    const runner = new Runner({
      appName: 'app',
      agent: new FunctionAgent({ name: 'Echo', run: () => 'hi' }),
      sessionService: store,
    });
    const session = await store.createSession({ appName: 'app', userId: 'u' });
    store.down = true;
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expect(result.status).toBe('failed');
    expect(isSessionBusy(store, 'app', 'u', session.id)).toBe(false);
    store.down = false;
    expect((await store.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events).toEqual([]);
  });
});
