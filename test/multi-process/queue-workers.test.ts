import type { Event } from '@troupe/core';
import { PostgresSessionService } from '@troupe/postgres';
import { RunQueue, type StreamEntry } from '@troupe/queue';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PG_URL,
  SKIP_POSTGRES,
  dropSchema,
  requirePostgres,
  uniqueSchema,
} from '../../packages/postgres/test/pg-test-env.js';
import { describeRedis, useRedis } from '../../packages/queue/test/redis-server.js';
import { Children, StepLog, WORKER, exited, requireBuilt, until } from './queue-harness.js';

// Background workers as real `node` processes over one PostgreSQL schema and a private Redis: a
// worker killed, frozen or crashing in a loop; Redis losing its jobs; schedules with two workers;
// graceful shutdown. The test process is the API side (a RunQueue).

// Short enough that takeovers are quick, long enough that a loaded machine does not look dead.
const LOCK_MS = 1_500;
// Every test spawns processes and waits for takeovers: bounded, but past vitest's default.
const TEST_MS = 60_000;
const STEP_MS = 300;

// Needs Redis and PostgreSQL: skipped outside CI when either is missing (in CI both must be there).
(SKIP_POSTGRES ? describe.skip : describeRedis)('background workers across processes', () => {
  const redis = useRedis();
  const schema = uniqueSchema('queue_workers');
  const children = new Children();
  let store: PostgresSessionService;
  let queue: RunQueue;
  let prefix: string;
  let log: StepLog;

  beforeAll(async () => {
    await requirePostgres();
    requireBuilt();
    store = new PostgresSessionService({ connectionString: PG_URL, schema });
  });
  afterEach(async () => {
    children.killAll();
    await queue?.close();
  });
  afterAll(async () => {
    await store?.close();
    if (PG_URL !== '') await dropSchema(schema);
  });

  /** A fresh Redis prefix (so nothing of an earlier test is seen), queue and step log. */
  function fresh(): void {
    prefix = `w${Math.random().toString(36).slice(2, 8)}`;
    queue = new RunQueue({ redis: redis().url, sessionService: store, prefix });
    log = new StepLog();
  }

  function startWorker(extra: Record<string, unknown> = {}) {
    return children.start(WORKER, {
      redis: redis().url,
      pg: PG_URL,
      schema,
      prefix,
      log: log.path,
      lockDurationMs: LOCK_MS,
      stepMs: STEP_MS,
      ...extra,
    });
  }

  /** Follows a run's stream in the background, as an SSE client would. */
  function follow(runId: string): { entries: StreamEntry[]; done: Promise<void> } {
    const entries: StreamEntry[] = [];
    const done = (async () => {
      for await (const entry of queue.join(runId)) entries.push(entry);
    })();
    return { entries, done };
  }

  async function storedEvents(sessionId: string, userId = 'u1', appName = 'pipeline'): Promise<Event[]> {
    return (await store.getSession({ appName, userId, sessionId }))!.events;
  }

  it(
    'a worker killed in the middle of a 5-node graph workflow: another finishes it, and no finished node runs again',
    async () => {
      fresh();
      const [a, b] = await Promise.all([startWorker(), startWorker()]);
      const session = await store.createSession({ appName: 'graph', userId: 'u1' });
      const run = await queue.enqueue({ appName: 'graph', userId: 'u1', sessionId: session.id, newMessage: 'go' });
      const ended = (events: Event[], node: string) =>
        events.filter((e) => e.nodeInfo?.path === `Graph.${node}` && e.actions.agentState?.node === 'ended');
      // Killed once node g2's end is stored: g1 and g2 must not run again.
      await until(async () => ended(await storedEvents(session.id, 'u1', 'graph'), 'g2').length > 0, 'node g2 to end');
      const holder = log.lines(run.runId)[0]!.pid;
      const victim = holder === a.pid ? a : b;
      victim.process.kill('SIGKILL');
      await until(async () => (await queue.status(run.runId)).status === 'completed', 'the run to complete', 20_000);

      const events = await storedEvents(session.id, 'u1', 'graph');
      const steps = log.lines(run.runId);
      for (const node of ['g1', 'g2']) {
        expect(steps.filter((l) => l.step === node)).toHaveLength(1);
        expect(ended(events, node)).toHaveLength(1);
        expect(ended(events, node)[0]!.output).toBe(`${node} by ${victim.pid}`);
      }
      // Every node ended exactly once; only the one in flight at the kill may have worked twice.
      for (const node of ['g1', 'g2', 'g3', 'g4', 'g5']) expect(ended(events, node)).toHaveLength(1);
      expect(new Set(steps.map((l) => l.step))).toEqual(new Set(['g1', 'g2', 'g3', 'g4', 'g5']));
      const final = events.filter((e) => e.author === 'Graph' && e.actions.agentState?.workflow === 'ended');
      expect(final).toHaveLength(1);
      expect(final[0]!.output).toMatch(/^g5 by \d+$/);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    },
    TEST_MS,
  );

  it(
    'a worker killed mid-pipeline: another completes the run within 10 s, finished steps not repeated, the stream has every stored event once, in order',
    async () => {
      fresh();
      const [a, b] = await Promise.all([startWorker(), startWorker()]);
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const run = await queue.enqueue({ appName: 'pipeline', userId: 'u1', sessionId: session.id, newMessage: 'go' });
      const client = follow(run.runId);
      // Killed once step s2's result is stored: s1 and s2 must not run again.
      await until(
        async () => (await storedEvents(session.id)).some((e) => e.author === 's2' && e.output !== undefined),
        'step s2 to be stored',
      );
      const holder = log.lines(run.runId)[0]!.pid;
      const victim = holder === a.pid ? a : b;
      const killedAt = Date.now();
      victim.process.kill('SIGKILL');
      await until(async () => (await queue.status(run.runId)).status === 'completed', 'the run to complete', 10_000);
      expect(Date.now() - killedAt).toBeLessThan(10_000);
      await client.done;

      // Steps whose results the killed worker had stored are not run again; only the one in flight
      // at the kill may have run twice (delivery is at least once, by design).
      const steps = log.lines(run.runId);
      const storedByVictim = (await storedEvents(session.id))
        .filter((e) => e.output === `${e.author} by ${victim.pid}`)
        .map((e) => e.author);
      expect(storedByVictim).toEqual(expect.arrayContaining(['s1', 's2']));
      for (const step of storedByVictim) expect(steps.filter((l) => l.step === step)).toHaveLength(1);
      expect(new Set(steps.map((l) => l.step))).toEqual(new Set(['s1', 's2', 's3', 's4', 's5']));

      const events = await storedEvents(session.id);
      expect(new Set(events.map((e) => e.invocationId))).toEqual(new Set([run.runId]));
      expect(events.filter((e) => e.author === 'user')).toHaveLength(1);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      const seen = client.entries.filter((e) => !e.event.partial).map((e) => e.event.id);
      expect(seen).toEqual(events.filter((e) => e.author !== 'user').map((e) => e.id));
      expect((await queue.status(run.runId)).attempts).toBeGreaterThanOrEqual(2);
    },
    TEST_MS,
  );

  it(
    'a frozen worker that wakes after its run was taken over stores nothing',
    async () => {
      fresh();
      const [a, b] = await Promise.all([startWorker(), startWorker()]);
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const run = await queue.enqueue({ appName: 'pipeline', userId: 'u1', sessionId: session.id, newMessage: 'go' });
      await until(() => log.lines(run.runId).some((l) => l.step === 's1'), 'step s1 to finish');
      const frozen = log.lines(run.runId)[0]!.pid === a.pid ? a : b;
      frozen.process.kill('SIGSTOP');
      await until(
        async () => (await queue.status(run.runId)).status === 'completed',
        'the other worker to complete the run',
        10_000,
      );
      const settled = await storedEvents(session.id);
      frozen.process.kill('SIGCONT');
      // Long enough for the woken worker to finish its step and try to store it.
      await new Promise((resolve) => setTimeout(resolve, STEP_MS + 700));
      expect((await storedEvents(session.id)).map((e) => e.id)).toEqual(settled.map((e) => e.id));
      const outputs = settled.filter((e) => e.author.startsWith('s') && e.output !== undefined).map((e) => e.author);
      expect(outputs).toEqual(['s1', 's2', 's3', 's4', 's5']);
      expect((await queue.status(run.runId)).status).toBe('completed');
    },
    TEST_MS,
  );

  it(
    'a run that crashes its worker every time ends abandoned with a stored RUN_ABANDONED event, and the session takes new runs',
    async () => {
      fresh();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const run = await queue.enqueue({
        appName: 'pipeline',
        userId: 'u1',
        sessionId: session.id,
        newMessage: 'go',
        stateDelta: { crashAt: 's2' },
      });
      // A supervisor: whenever the worker dies, another starts (as a container orchestrator would).
      let current = await startWorker();
      const deadline = Date.now() + 45_000;
      let restarts = 0;
      while (!['abandoned', 'completed', 'failed'].includes((await queue.status(run.runId)).status)) {
        if (Date.now() > deadline) throw new Error('the crashing run did not end within 45 s');
        if (current.process.exitCode !== null || current.process.signalCode !== null) {
          current = await startWorker();
          restarts++;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const status = await queue.status(run.runId);
      expect(status.status).toBe('abandoned');
      expect(status.error?.code).toBe('RUN_ABANDONED');
      expect(restarts).toBe(3);
      const events = await storedEvents(session.id);
      expect(events.filter((e) => e.errorCode === 'RUN_ABANDONED')).toHaveLength(1);
      expect(events.at(-1)!.errorCode).toBe('RUN_ABANDONED');

      const next = await queue.enqueue({
        appName: 'pipeline',
        userId: 'u1',
        sessionId: session.id,
        newMessage: 'again',
        stateDelta: { crashAt: null },
      });
      await until(
        async () => (await queue.status(next.runId)).status === 'completed',
        'a new run on the same session',
        10_000,
      );
    },
    TEST_MS,
  );

  it(
    'Redis loses the job before any worker takes it: the sweeper puts it back and the run completes exactly once',
    async () => {
      fresh();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const run = await queue.enqueue({ appName: 'pipeline', userId: 'u1', sessionId: session.id, newMessage: 'go' });
      const admin = new Redis(redis().url);
      try {
        await admin.flushall();
      } finally {
        admin.disconnect();
      }
      await Promise.all([
        startWorker({ sweepIntervalMs: 300, stepMs: 20 }),
        startWorker({ sweepIntervalMs: 300, stepMs: 20 }),
      ]);
      await until(
        async () => (await queue.status(run.runId)).status === 'completed',
        'the swept run to complete',
        10_000,
      );
      // Both workers sweep: the run still ran once.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(log.lines(run.runId).map((l) => l.step)).toEqual(['s1', 's2', 's3', 's4', 's5']);
      expect((await storedEvents(session.id)).filter((e) => e.author === 'user')).toHaveLength(1);
    },
    TEST_MS,
  );

  it(
    'a schedule every second with two workers runs once a second, each tick once',
    async () => {
      fresh();
      await Promise.all([startWorker(), startWorker()]);
      const scheduledAt = Date.now();
      await queue.schedule({ id: 'every-second', appName: 'tick', userId: 'u1', newMessage: 'tick', everyMs: 1_000 });
      const tickLines = () => log.lines().filter((l) => l.step === 'tick');
      await until(() => tickLines().length >= 4, 'four ticks', 30_000);
      await queue.removeSchedule('every-second');
      const removedAt = Date.now();
      const ticks = tickLines();
      // However slowly the machine ran them: never more than one tick a second (two workers both
      // firing one would double them), and no tick run twice.
      expect(ticks.length).toBeLessThanOrEqual(Math.floor((removedAt - scheduledAt) / 1_000) + 1);
      expect(new Set(ticks.map((t) => t.runId)).size).toBe(ticks.length);
      expect(await queue.listSchedules('tick')).toEqual([]);
    },
    TEST_MS,
  );

  it(
    'SIGTERM: a run that outlasts the grace period is handed back without a stored cancellation and finished by another worker; one that fits finishes',
    async () => {
      fresh();
      const quick = await startWorker({ graceMs: 0 });
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const run = await queue.enqueue({ appName: 'pipeline', userId: 'u1', sessionId: session.id, newMessage: 'go' });
      await until(() => log.lines(run.runId).some((l) => l.step === 's1'), 'step s1 to finish');
      quick.process.kill('SIGTERM');
      await exited(quick);
      expect((await queue.status(run.runId)).status).toBe('pending');
      await startWorker();
      await until(
        async () => (await queue.status(run.runId)).status === 'completed',
        'another worker to finish the handed-back run',
        10_000,
      );
      const events = await storedEvents(session.id);
      expect(events.some((e) => e.errorCode !== undefined)).toBe(false);
      expect((await queue.status(run.runId)).attempts).toBe(1);

      children.killAll();
      const patient = await startWorker({ graceMs: 10_000 });
      const second = await queue.enqueue({
        appName: 'pipeline',
        userId: 'u1',
        sessionId: session.id,
        newMessage: 'again',
      });
      await until(() => log.lines(second.runId).some((l) => l.step === 's1'), 'step s1 of the second run');
      patient.process.kill('SIGTERM');
      await exited(patient);
      expect(await queue.status(second.runId)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(log.lines(second.runId).map((l) => l.step)).toEqual(['s1', 's2', 's3', 's4', 's5']);
    },
    TEST_MS,
  );
});
