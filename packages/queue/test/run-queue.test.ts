import { setTimeout as sleep } from 'node:timers/promises';
import { FunctionAgent, InMemorySessionService, SequentialAgent, SessionBusyError, type Event } from '@troupe/core';
import { RunQueue, RunWorker, type StreamEntry } from '@troupe/queue';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeRedis, useRedis } from './redis-server.js';
import { startWorker } from './start-worker.js';
import { until } from './until.js';

// One process, a real redis-server: the queue and a worker share an in-memory store, so these
// tests cover what one run goes through; the multi-process tests cover crashes and replicas.

const APP = 'jobs';

/** Three steps, each taking `stepMs` (or what it gives for the run's message) unless aborted. */
function pipeline(stepMs: number | ((message: string) => number), ran: string[]): SequentialAgent {
  const step = (name: string) =>
    new FunctionAgent({
      name,
      run: async (input, ctx) => {
        const ms = typeof stepMs === 'number' ? stepMs : stepMs(String(input.request));
        await sleep(ms, undefined, { signal: ctx.abortSignal }).catch(() => undefined);
        ran.push(name);
        return `${name} done`;
      },
    });
  return new SequentialAgent({ name: 'Pipeline', subAgents: [step('s1'), step('s2'), step('s3')] });
}

async function collect(entries: AsyncIterable<StreamEntry>): Promise<StreamEntry[]> {
  const all: StreamEntry[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

describeRedis('RunQueue and RunWorker in one process', () => {
  const redis = useRedis();
  let store: InMemorySessionService;
  let queue: RunQueue;
  let worker: RunWorker;
  let ran: string[];
  let prefix: string;

  beforeEach(async () => {
    store = new InMemorySessionService();
    ran = [];
    prefix = `t${Math.random().toString(36).slice(2, 8)}`;
    queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    worker = await startWorker({
      apps: { [APP]: pipeline(50, ran) },
      sessionService: store,
      redis: redis().url,
      prefix,
    });
  });
  afterEach(async () => {
    await worker.close({ gracePeriodMs: 0 });
    await queue.close();
  });

  it('runs a background run to the end: status, stored events and the live stream agree', async () => {
    const session = await store.createSession({ appName: APP, userId: 'u1' });
    const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'go' });
    expect(run.status).toBe('pending');
    const entries = await collect(queue.join(run.runId));
    const status = await queue.status(run.runId);
    expect(status).toMatchObject({ runId: run.runId, status: 'completed', attempts: 1 });
    const stored = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events;
    expect(stored.every((e) => e.invocationId === run.runId)).toBe(true);
    // Everything the run stored, as the runner yields it: all but the user's message.
    expect(stored[0]!.author).toBe('user');
    expect(entries.map((e) => e.event.id)).toEqual(stored.slice(1).map((e) => e.id));
    expect(ran).toEqual(['s1', 's2', 's3']);
    // Stream ids increase, and a join after an id delivers only what follows it.
    const later = await collect(queue.join(run.runId, { lastEventId: entries[1]!.id }));
    expect(later.map((e) => e.id)).toEqual(entries.slice(2).map((e) => e.id));
    // An event's own id (what a replay of the stored events sends as the SSE id) works the same.
    const afterEvent = await collect(queue.join(run.runId, { lastEventId: entries[1]!.event.id }));
    expect(afterEvent.map((e) => e.id)).toEqual(entries.slice(2).map((e) => e.id));
  });

  it("refuses a second run on a busy session with 'reject', runs it after with 'enqueue'", async () => {
    const session = await store.createSession({ appName: APP, userId: 'u1' });
    const first = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'one' });
    await expect(
      queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'two' }),
    ).rejects.toBeInstanceOf(SessionBusyError);
    const second = await queue.enqueue({
      appName: APP,
      userId: 'u1',
      sessionId: session.id,
      newMessage: 'two',
      multitaskStrategy: 'enqueue',
    });
    await collect(queue.join(second.runId));
    expect((await queue.status(first.runId)).status).toBe('completed');
    expect((await queue.status(second.runId)).status).toBe('completed');
    const events = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events;
    // Never interleaved: every event of the first run comes before any of the second.
    const order = events.map((e) => e.invocationId);
    expect(order.lastIndexOf(first.runId)).toBeLessThan(order.indexOf(second.runId));
    expect((await queue.list({ appName: APP, userId: 'u1', sessionId: session.id })).map((r) => r.runId)).toEqual([
      first.runId,
      second.runId,
    ]);
  });

  it('cancels a running run: one stored CANCELLED event, status cancelled, the session free', async () => {
    const slowRan: string[] = [];
    await worker.close({ gracePeriodMs: 0 });
    // Steps of a minute for 'go': only the cancellation can end that run within the test.
    worker = await startWorker({
      apps: { [APP]: pipeline((message) => (message === 'go' ? 60_000 : 10), slowRan) },
      sessionService: store,
      redis: redis().url,
      prefix,
    });
    const session = await store.createSession({ appName: APP, userId: 'u1' });
    const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'go' });
    await until(async () => (await queue.status(run.runId)).status === 'running', 'the run to start');
    await queue.cancel(run.runId);
    await until(async () => (await queue.status(run.runId)).status === 'cancelled', 'the run to be cancelled');
    const events = (await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events;
    expect(events.filter((e: Event) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    expect(slowRan.length).toBeLessThan(3);
    const next = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'again' });
    await collect(queue.join(next.runId));
    expect((await queue.status(next.runId)).status).toBe('completed');
  });

  it('cancels a pending run before any worker takes it: nothing stored', async () => {
    await worker.close({ gracePeriodMs: 0 });
    const session = await store.createSession({ appName: APP, userId: 'u1' });
    const run = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: session.id, newMessage: 'go' });
    expect((await queue.cancel(run.runId)).status).toBe('cancelled');
    expect(await collect(queue.join(run.runId))).toEqual([]);
    worker = new RunWorker({
      apps: { [APP]: pipeline(10, ran) },
      sessionService: store,
      redis: redis().url,
      prefix,
      sweepIntervalMs: 0,
    });
    await worker.start();
    // A run enqueued after the cancelled one completes: by then the worker has passed the cancelled
    // one by, and ran nothing of it.
    const other = await store.createSession({ appName: APP, userId: 'u1' });
    const later = await queue.enqueue({ appName: APP, userId: 'u1', sessionId: other.id, newMessage: 'go' });
    await collect(queue.join(later.runId));
    expect((await queue.status(later.runId)).status).toBe('completed');
    expect(ran).toEqual(['s1', 's2', 's3']);
    expect((await store.getSession({ appName: APP, userId: 'u1', sessionId: session.id }))!.events).toEqual([]);
  });
});
