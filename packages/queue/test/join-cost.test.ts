import { FunctionAgent, InMemorySessionService, textOf } from '@troupe/core';
import { RunNotFoundError, RunQueue, type RunWorker, type StreamEntry } from '@troupe/queue';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';
import { until } from './until.js';

// What following a run costs the API (issue #34): `/run` on a queue joins every run it starts, so a
// connection per join, or a read of the run's record at its end, is paid by every request.

const APP = 'echo';

const echo = new FunctionAgent({ name: 'Echo', run: async (input) => `echo ${String(input.request)}` });

async function collect(entries: AsyncIterable<StreamEntry>): Promise<StreamEntry[]> {
  const all: StreamEntry[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

describeRedis('RunQueue.join: what following a run costs', () => {
  const redis = useRedis();
  let store: InMemorySessionService;
  let queue: RunQueue;
  let worker: RunWorker;
  let admin: Redis;
  let queuePrefix: string;

  beforeEach(async () => {
    store = new InMemorySessionService();
    queuePrefix = `t${Math.random().toString(36).slice(2, 8)}`;
    queue = new RunQueue({ redis: redis().url, sessionService: store, prefix: queuePrefix });
    worker = await startWorker({
      apps: { [APP]: echo },
      sessionService: store,
      redis: redis().url,
      prefix: queuePrefix,
    });
    admin = new Redis(redis().url);
  });
  afterEach(async () => {
    admin.disconnect();
    await worker.close({ gracePeriodMs: 0 });
    await queue.close();
  });

  async function connectionsReceived(): Promise<number> {
    return Number(/total_connections_received:(\d+)/.exec(await admin.info('stats'))![1]);
  }

  async function runAndJoin(message: string, signal?: AbortSignal): Promise<StreamEntry[]> {
    const session = await store.createSession({ appName: APP, userId: 'u' });
    const run = await queue.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: message });
    return collect(queue.join(run.runId, signal ? { signal } : {}));
  }

  it('reuses the connection of a join that read to the end for the next one', async () => {
    await runAndJoin('warm');
    const before = await connectionsReceived();
    for (let i = 0; i < 5; i++) {
      const entries = await runAndJoin(`m${i}`);
      expect(entries.map((e) => textOf(e.event))).toEqual([`echo m${i}`]);
    }
    expect(await connectionsReceived()).toBe(before);
  });

  it('closes the connection of a join stopped mid-read instead of keeping it', async () => {
    // A run on a queue no worker serves: its join blocks in a read until stopped.
    const idle = new RunQueue({ redis: redis().url, sessionService: store, prefix: 'noworker' });
    try {
      const session = await store.createSession({ appName: APP, userId: 'u' });
      const run = await idle.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: 'never' });
      const stop = new AbortController();
      const following = collect(idle.join(run.runId, { signal: stop.signal }));
      await until(async () => (await streamReaders()) === 1, 'the join to block in a read');
      stop.abort();
      expect(await following).toEqual([]);
      await until(async () => (await streamReaders()) === 0, "the stopped join's connection to close");
    } finally {
      await idle.close();
    }
  });

  it('reads no record to follow a run it just queued, and one for a run queued elsewhere', async () => {
    // The API's store, counting its reads of run records; the worker reads through its own handle.
    const reads: string[] = [];
    const counted = Object.create(store) as InMemorySessionService;
    counted.getRun = (key) => {
      reads.push(key);
      return store.getRun(key);
    };
    const api = new RunQueue({ redis: redis().url, sessionService: counted, prefix: queuePrefix });
    try {
      const session = await store.createSession({ appName: APP, userId: 'u' });
      const mine = await api.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: 'mine' });
      const endings: string[] = [];
      expect(await collect(api.join(mine.runId, { onEnd: (status) => endings.push(status) }))).toHaveLength(1);
      // Started from the record it wrote, ended at the end marker that said 'completed'.
      expect(reads).toEqual([]);
      expect(endings).toEqual(['completed']);

      const other = await runAndJoin('elsewhere');
      const [entry] = other;
      const joined = await collect(api.join(entry!.event.invocationId));
      expect(joined.map((e) => e.event.id)).toEqual(other.map((e) => e.event.id));
      // The record the join starts from; nothing after the end marker.
      expect(reads).toEqual([entry!.event.invocationId]);
    } finally {
      await api.close();
    }
  });

  it('does not hand a run it just queued to a join naming another session', async () => {
    const session = await store.createSession({ appName: APP, userId: 'u' });
    const run = await queue.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: 'mine' });
    const stranger = { appName: APP, userId: 'mallory', sessionId: session.id };
    await expect(collect(queue.join(run.runId, { session: stranger }))).rejects.toBeInstanceOf(RunNotFoundError);
    // Still there for its own session.
    expect(await collect(queue.join(run.runId, { session: { ...stranger, userId: 'u' } }))).toHaveLength(1);
  });

  it('replays the stored events of a run it queued and joins only after the live stream expired', async () => {
    // A worker whose streams expire a second after their run ends.
    const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    const shortLived = await startWorker({
      apps: { [APP]: echo },
      sessionService: store,
      redis: redis().url,
      prefix,
      streamTtlMs: 1_000,
    });
    const api = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    try {
      const session = await store.createSession({ appName: APP, userId: 'u' });
      const run = await api.enqueue({ appName: APP, userId: 'u', sessionId: session.id, newMessage: 'late' });
      await until(async () => (await api.status(run.runId)).status === 'completed', 'the run to complete');
      await until(async () => (await admin.keys(`${prefix}:run:*:events`)).length === 0, 'the stream to expire');
      const replayed = await collect(api.join(run.runId));
      expect(replayed.map((e) => textOf(e.event))).toEqual(['echo late']);
    } finally {
      await shortLived.close({ gracePeriodMs: 0 });
      await api.close();
    }
  });

  /** Connections whose last command was a stream read: a join's, blocked in it or kept for the next join. */
  async function streamReaders(): Promise<number> {
    return String(await admin.client('LIST'))
      .split('\n')
      .filter((line) => line.includes('cmd=xread')).length;
  }
});
