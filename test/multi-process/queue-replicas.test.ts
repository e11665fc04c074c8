import type { Event } from '@troupe/core';
import { PostgresSessionService } from '@troupe/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PG_URL,
  SKIP_POSTGRES,
  dropSchema,
  requirePostgres,
  uniqueSchema,
} from '../../packages/postgres/test/pg-test-env.js';
import { describeRedis, useRedis } from '../../packages/queue/test/redis-server.js';
import { API, type Child, Children, StepLog, WORKER, requireBuilt, until } from './queue-harness.js';

// Two API replicas and two workers, all real `node` processes, over one PostgreSQL schema and a
// private Redis, as behind a load balancer: whichever replica a request reaches, it sees the same
// runs. Double texts, cancels, stream reconnects and approvals cross replicas here.

const STEP_MS = 250;
// Every test spawns four processes: bounded, but past vitest's default.
const TEST_MS = 60_000;

interface Frame {
  id: string;
  event: Event & { timestamp: number };
}

// Needs Redis and PostgreSQL: skipped outside CI when either is missing (in CI both must be there).
(SKIP_POSTGRES ? describe.skip : describeRedis)('background runs across API replicas', () => {
  const redis = useRedis();
  const schema = uniqueSchema('queue_replicas');
  const children = new Children();
  let store: PostgresSessionService;
  let prefix: string;
  let log: StepLog;
  let apis: [Child, Child];

  beforeAll(async () => {
    await requirePostgres();
    requireBuilt();
    store = new PostgresSessionService({ connectionString: PG_URL, schema });
  });
  afterEach(() => children.killAll());
  afterAll(async () => {
    await store?.close();
    if (PG_URL !== '') await dropSchema(schema);
  });

  async function deploy(): Promise<void> {
    prefix = `r${Math.random().toString(36).slice(2, 8)}`;
    log = new StepLog();
    const common = { redis: redis().url, pg: PG_URL, schema, prefix };
    const started = await Promise.all([
      children.start(API, common),
      children.start(API, common),
      children.start(WORKER, { ...common, log: log.path, lockDurationMs: 2_000, stepMs: STEP_MS }),
      children.start(WORKER, { ...common, log: log.path, lockDurationMs: 2_000, stepMs: STEP_MS }),
    ]);
    apis = [started[0], started[1]];
  }

  const url = (api: Child, path: string) => `${api.banner}${path}`;
  const runsPath = (app: string, sessionId: string) => `/apps/${app}/users/u1/sessions/${sessionId}/runs`;

  async function post(
    api: Child,
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(url(api, path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function runStatus(api: Child, app: string, sessionId: string, runId: string): Promise<string> {
    const response = await fetch(url(api, `${runsPath(app, sessionId)}/${runId}`));
    return ((await response.json()) as { status: string }).status;
  }

  /** Reads SSE frames until the stream ends or `stopAfter` frames arrived (then disconnects). */
  async function readFrames(
    api: Child,
    path: string,
    options: { lastEventId?: string; stopAfter?: number; body?: unknown } = {},
  ): Promise<Frame[]> {
    const controller = new AbortController();
    const headers: Record<string, string> = options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {};
    const init: RequestInit = options.body
      ? {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(options.body),
          signal: controller.signal,
        }
      : { headers, signal: controller.signal };
    const response = await fetch(url(api, path), init);
    expect(response.status).toBe(200);
    const frames: Frame[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = response.body!.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return frames;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: ?(.*)$/m.exec(block)?.[1];
          const data = /^data: ?(.*)$/m.exec(block)?.[1];
          if (data === undefined) continue;
          frames.push({ id: id ?? '', event: JSON.parse(data) as Frame['event'] });
          if (options.stopAfter !== undefined && frames.length >= options.stopAfter) {
            controller.abort();
            return frames;
          }
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return frames;
      throw error;
    }
  }

  async function storedEvents(app: string, sessionId: string): Promise<Event[]> {
    return (await store.getSession({ appName: app, userId: 'u1', sessionId }))!.events;
  }

  it(
    'a double text on two replicas: one 202 and one 409, the first run completes; with enqueue, turn 2 runs after turn 1',
    async () => {
      await deploy();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const [one, two] = await Promise.all([
        post(apis[0], runsPath('pipeline', session.id), { newMessage: { role: 'user', parts: [{ text: 'one' }] } }),
        post(apis[1], runsPath('pipeline', session.id), { newMessage: { role: 'user', parts: [{ text: 'two' }] } }),
      ]);
      expect([one.status, two.status].sort()).toEqual([202, 409]);
      const accepted = one.status === 202 ? one : two;
      const refused = one.status === 409 ? one : two;
      expect(JSON.stringify(refused.json)).toContain('SESSION_BUSY');
      const first = String(accepted.json.runId);
      await until(
        async () => (await runStatus(apis[1], 'pipeline', session.id, first)) === 'completed',
        'the first run to complete',
        10_000,
      );

      const [turn1, turn2] = [
        await post(apis[0], runsPath('pipeline', session.id), {
          newMessage: { role: 'user', parts: [{ text: 'three' }] },
          multitaskStrategy: 'enqueue',
        }),
        await post(apis[1], runsPath('pipeline', session.id), {
          newMessage: { role: 'user', parts: [{ text: 'four' }] },
          multitaskStrategy: 'enqueue',
        }),
      ];
      expect([turn1.status, turn2.status]).toEqual([202, 202]);
      await until(
        async () => (await runStatus(apis[0], 'pipeline', session.id, String(turn2.json.runId))) === 'completed',
        'turn 2 to complete',
        15_000,
      );
      const order = (await storedEvents('pipeline', session.id)).map((e) => e.invocationId);
      expect(order.lastIndexOf(String(turn1.json.runId))).toBeLessThan(order.indexOf(String(turn2.json.runId)));
    },
    TEST_MS,
  );

  it(
    'a cancel posted to the other replica ends the run cancelled within 1 s',
    async () => {
      await deploy();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const { json } = await post(apis[0], runsPath('pipeline', session.id), {
        newMessage: { role: 'user', parts: [{ text: 'go' }] },
      });
      const runId = String(json.runId);
      await until(() => log.lines(runId).length >= 1, 'the first step');
      const cancelled = await post(apis[1], `${runsPath('pipeline', session.id)}/${runId}/cancel`, {});
      expect(cancelled.status).toBe(200);
      const asked = Date.now();
      await until(
        async () => (await runStatus(apis[0], 'pipeline', session.id, runId)) === 'cancelled',
        'the run to be cancelled',
        1_000,
      );
      expect(Date.now() - asked).toBeLessThan(1_000);
      expect((await storedEvents('pipeline', session.id)).filter((e) => e.errorCode === 'CANCELLED')).toHaveLength(1);
    },
    TEST_MS,
  );

  it(
    'a stream dropped on one replica resumes on the other with Last-Event-ID: every later frame exactly once',
    async () => {
      await deploy();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const { json } = await post(apis[0], runsPath('pipeline', session.id), {
        newMessage: { role: 'user', parts: [{ text: 'go' }] },
      });
      const stream = `${runsPath('pipeline', session.id)}/${String(json.runId)}/stream`;
      const head = await readFrames(apis[0], stream, { stopAfter: 2 });
      const tail = await readFrames(apis[1], stream, { lastEventId: head.at(-1)!.id });
      const seen = [...head, ...tail];
      expect(new Set(seen.map((f) => f.id)).size).toBe(seen.length);
      const stored = (await storedEvents('pipeline', session.id)).filter((e) => e.author !== 'user');
      expect(seen.map((f) => f.event.id)).toEqual(stored.map((e) => e.id));
      expect(head.every((f) => /^\d+-\d+$/.test(f.id))).toBe(true);
    },
    TEST_MS,
  );

  it(
    '/run_sse on a replica runs on a worker and streams every stored event in order',
    async () => {
      await deploy();
      const session = await store.createSession({ appName: 'pipeline', userId: 'u1' });
      const frames = await readFrames(apis[1], '/run_sse', {
        body: {
          appName: 'pipeline',
          userId: 'u1',
          sessionId: session.id,
          newMessage: { role: 'user', parts: [{ text: 'go' }] },
        },
      });
      const stored = (await storedEvents('pipeline', session.id)).filter((e) => e.author !== 'user');
      expect(frames.map((f) => f.event.id)).toEqual(stored.map((e) => e.id));
      expect(log.lines().map((l) => l.step)).toEqual(['s1', 's2', 's3', 's4', 's5']);
    },
    TEST_MS,
  );

  it(
    'a background run that pauses for approval is resumed through the other replica; the tool runs exactly once',
    async () => {
      await deploy();
      const session = await store.createSession({ appName: 'desk', userId: 'u1' });
      const { json } = await post(apis[0], runsPath('desk', session.id), {
        newMessage: { role: 'user', parts: [{ text: 'refund A1' }] },
      });
      const runId = String(json.runId);
      await until(
        async () => (await runStatus(apis[0], 'desk', session.id, runId)) === 'interrupted',
        'the run to pause for approval',
        10_000,
      );
      const interrupt = (await storedEvents('desk', session.id)).find((e) => e.interrupt)!.interrupt!;
      const frames = await readFrames(apis[1], `/apps/desk/users/u1/sessions/${session.id}/resume`, {
        body: { invocationId: runId, responses: { [interrupt.id]: true } },
      });
      expect(frames.some((f) => f.event.content?.parts.some((p) => 'text' in p && p.text === 'Refunded.'))).toBe(true);
      expect(await runStatus(apis[1], 'desk', session.id, runId)).toBe('completed');
      expect(log.lines(runId).filter((l) => l.step === 'refund')).toHaveLength(1);
      expect(new Set((await storedEvents('desk', session.id)).map((e) => e.invocationId))).toEqual(new Set([runId]));
    },
    TEST_MS,
  );
});
