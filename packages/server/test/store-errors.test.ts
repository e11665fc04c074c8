import { describe, expect, it } from 'vitest';
import { FunctionAgent, SequentialAgent, StorageError } from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import { createApp, type ErrorBody, type ErrorReport, type WireEvent } from '../src/index.js';
import { bankApp, call, createSession, expectError, message, readSse } from './helpers.js';
import { OutageStore, ShortLeaseStore } from './stores.js';

// Errors that come from the store or from another process map to statuses a client can act on:
// 503 STORAGE (nothing was stored: retry once the store is back), 500 RUN_OUTCOME_UNKNOWN (a run
// stored part of itself: look up its invocation before doing it again), 409 LEASE_LOST (another
// process took the session over), 409 INVOCATION_EXISTS (this invocation id was used already).
// Never a crash.

/** Waits (at most 5 s) until no run holds the session, e.g. one storing its error record late. */
async function untilFree(store: OutageStore, sessionId: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (isSessionBusy(store, 'pipeline', 'u', sessionId)) {
    if (Date.now() > deadline) throw new Error(`session ${sessionId} still busy after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function outageApp() {
  const store = new OutageStore();
  const errors: unknown[] = [];
  const reports: ErrorReport[] = [];
  // 'breaker' takes the store down as it finishes, so its own event cannot be stored.
  const pipeline = new SequentialAgent({
    name: 'pipeline',
    subAgents: [
      new FunctionAgent({ name: 'first', run: () => 'first done' }),
      new FunctionAgent({
        name: 'breaker',
        run: (input) => {
          if (String(input.request).includes('break')) store.down = true;
          return 'breaker done';
        },
      }),
    ],
  });
  const app = createApp({
    apps: { pipeline },
    sessionService: store,
    onError: (error, _request, report) => {
      errors.push(error);
      reports.push(report);
    },
  });
  return { app, store, errors, reports };
}

const run = (sessionId: string, text: string, extra: Record<string, unknown> = {}) => ({
  appName: 'pipeline',
  userId: 'u',
  sessionId,
  newMessage: message(text),
  ...extra,
});

describe('a session store that is down', () => {
  it("answers 503 STORAGE on every route that needs it, with a request id and without the store's own message, which onError gets", async () => {
    const { app, store, errors, reports } = outageApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.down = true;
    const requests: [string, string, unknown?][] = [
      ['POST', '/apps/pipeline/users/u/sessions'],
      ['GET', '/apps/pipeline/users/u/sessions'],
      ['GET', `/apps/pipeline/users/u/sessions/${s.id}`],
      ['DELETE', `/apps/pipeline/users/u/sessions/${s.id}`],
      ['POST', '/run', run(s.id, 'hi')],
      ['POST', '/run_sse', run(s.id, 'hi')],
      ['POST', `/apps/pipeline/users/u/sessions/${s.id}/resume`, { responses: {}, invocationId: 'e-1' }],
    ];
    const ids: string[] = [];
    for (const [method, path, body] of requests) {
      const res = await call(app, method, path, body);
      const id = res.headers.get('X-Request-Id')!;
      const { error } = (await res.json()) as ErrorBody;
      expect([res.status, error.code, error.requestId], `${method} ${path}`).toEqual([503, 'STORAGE', id]);
      expect(error.message).toMatch(/^The session store failed/);
      expect(error.message).toContain(`Request id: ${id}.`);
      // The store's message names a database host: the server's log gets it, the client does not.
      expect(error.message).not.toContain('db.internal');
      ids.push(id);
    }
    expect(errors).toHaveLength(requests.length);
    expect(errors.every((e) => e instanceof StorageError && e.message === OutageStore.PROBLEM)).toBe(true);
    expect(reports).toEqual(ids.map((requestId) => ({ requestId, level: 'error' })));

    store.down = false;
    expect((await call(app, 'POST', '/run', run(s.id, 'hi'))).status).toBe(200);
  });

  it('/run: a store that fails mid-run, after part of the run was stored, is a 500 RUN_OUTCOME_UNKNOWN naming the invocation (not a 503 that invites a retry, nor a 200 with part of the events); the session is free afterwards', async () => {
    const { app, store } = outageApp();
    const s = await createSession(app, 'pipeline', 'u');
    const res = await call(app, 'POST', '/run', run(s.id, 'break', { invocationId: 'break-1' }));
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code, error.invocationId]).toEqual([500, 'RUN_OUTCOME_UNKNOWN', 'break-1']);
    expect(error.message).toMatch(/^The session store failed during the run of invocation 'break-1'/);
    expect(error.message).not.toContain('db.internal');
    store.down = false;
    // The run's error record is stored once the store is back; until then the session stays claimed.
    await untilFree(store, s.id);
    const stored = (await (await call(app, 'GET', `/apps/pipeline/users/u/sessions/${s.id}`)).json()) as {
      events: WireEvent[];
    };
    expect(stored.events.map((e) => e.errorCode ?? e.author)).toEqual(['user', 'first', 'STORAGE']);
    const next = await call(app, 'POST', '/run', run(s.id, 'again'));
    expect(next.status).toBe(200);
  });

  it('/run_sse: a store that fails mid-stream ends the stream with a STORAGE frame; the session is free afterwards', async () => {
    const { app, store } = outageApp();
    const s = await createSession(app, 'pipeline', 'u');
    const { events } = await readSse(await call(app, 'POST', '/run_sse', run(s.id, 'break')));
    expect(events.map((e) => e.errorCode ?? e.content?.parts[0])).toEqual([{ text: 'first done' }, 'STORAGE']);
    expect(events.at(-1)!.errorMessage).toBe(OutageStore.PROBLEM);
    store.down = false;
    await untilFree(store, s.id);
    expect((await call(app, 'POST', '/run', run(s.id, 'again'))).status).toBe(200);
  });
});

describe('a session taken over by another process', () => {
  it('/run answers 409 LEASE_LOST when the run lost its lease while frozen; the other process holds the session', async () => {
    // Leases of 50 ms; the step stays away longer, and meanwhile "another process" takes the session.
    const store = new ShortLeaseStore(50);
    const key = { appName: 'slowpoke', userId: 'u', sessionId: 's1' };
    const frozen = new FunctionAgent({
      name: 'frozen',
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 120));
        expect(await store.leaseSession({ ...key, owner: 'worker-2', ttlMs: 60_000 })).toBeDefined();
        return 'done';
      },
    });
    const app = createApp({ apps: { slowpoke: frozen }, sessionService: store });
    await createSession(app, 'slowpoke', 'u', { sessionId: 's1' });
    const res = await call(app, 'POST', '/run', { ...key, newMessage: message('hi') });
    expect(await expectError(res, 409, 'LEASE_LOST')).toMatch(/s1/);
    // Nothing the frozen run produced was stored: only the user's message, written under its lease.
    const stored = (await (await call(app, 'GET', '/apps/slowpoke/users/u/sessions/s1')).json()) as {
      events: WireEvent[];
    };
    expect(stored.events.map((e) => e.author)).toEqual(['user']);
    await expectError(await call(app, 'POST', '/run', { ...key, newMessage: message('again') }), 409, 'SESSION_BUSY');
  });
});

describe('a caller-chosen invocationId', () => {
  it('is used for the run; a second run with it is 409 INVOCATION_EXISTS and stores nothing', async () => {
    const { app } = outageApp();
    const s = await createSession(app, 'pipeline', 'u');
    const res = await call(app, 'POST', '/run', run(s.id, 'hi', { invocationId: 'order-42:try.1' }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as WireEvent[]).map((e) => e.invocationId)).toEqual([
      'order-42:try.1',
      'order-42:try.1',
    ]);
    expect(
      await expectError(
        await call(app, 'POST', '/run', run(s.id, 'hi', { invocationId: 'order-42:try.1' })),
        409,
        'INVOCATION_EXISTS',
      ),
    ).toMatch(/order-42:try\.1/);
    await expectError(
      await call(app, 'POST', '/run_sse', run(s.id, 'hi', { invocationId: 'order-42:try.1' })),
      409,
      'INVOCATION_EXISTS',
    );

    const { events } = await readSse(
      await call(app, 'POST', '/run_sse', run(s.id, 'hi', { invocation_id: 'order-43' })),
    );
    expect(new Set(events.map((e) => e.invocationId))).toEqual(new Set(['order-43']));
    const stored = (await (await call(app, 'GET', `/apps/pipeline/users/u/sessions/${s.id}`)).json()) as {
      events: WireEvent[];
    };
    expect(stored.events).toHaveLength(6);
  });

  it('is validated like core does: 1–128 of [A-Za-z0-9._:-], else a 400 naming the field, in /run, /run_sse and resume', async () => {
    const { app } = outageApp();
    const s = await createSession(app, 'pipeline', 'u');
    const { app: bank } = bankApp([]);
    const b = await createSession(bank, 'bank', 'u');
    for (const bad of ['', 'has space', 'slash/y', 'x'.repeat(129), 7]) {
      for (const [target, path, body] of [
        [app, '/run', run(s.id, 'hi', { invocationId: bad })],
        [app, '/run_sse', run(s.id, 'hi', { invocationId: bad })],
        [bank, `/apps/bank/users/u/sessions/${b.id}/resume`, { responses: {}, invocationId: bad }],
      ] as const) {
        const res = await call(target, 'POST', path, body);
        const error = (await res.json()) as { error: { code: string; field: string; message: string } };
        expect([res.status, error.error.code, error.error.field], `${path} ${JSON.stringify(bad)}`).toEqual([
          400,
          'INVALID_REQUEST',
          'invocationId',
        ]);
      }
    }
    expect((await call(app, 'POST', '/run', run(s.id, 'hi', { invocationId: 'x'.repeat(128) }))).status).toBe(200);
    expect((await call(app, 'POST', '/run', run(s.id, 'hi', { invocationId: null }))).status).toBe(200);
  });

  it('picks the invocation a resume continues', async () => {
    const { app, sent } = bankApp([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] },
      'Sent.',
    ]);
    const s = await createSession(app, 'bank', 'u');
    const paused = await call(app, 'POST', '/run', {
      appName: 'bank',
      userId: 'u',
      sessionId: s.id,
      newMessage: message('send 5'),
      invocationId: 'pay-5',
    });
    expect(((await paused.json()) as WireEvent[]).at(-1)!.interrupt).toBeDefined();
    const interruptId = (
      (await (await call(app, 'GET', `/apps/bank/users/u/sessions/${s.id}`)).json()) as { events: WireEvent[] }
    ).events.at(-1)!.interrupt!.id;
    const res = await call(app, 'POST', `/apps/bank/users/u/sessions/${s.id}/resume`, {
      responses: { [interruptId]: true },
      invocationId: 'pay-5',
    });
    const { events } = await readSse(res);
    expect(events.every((e) => e.invocationId === 'pay-5')).toBe(true);
    expect(sent).toEqual([5]);
  });
});
