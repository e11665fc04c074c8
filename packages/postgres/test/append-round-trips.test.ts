import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createEvent, StaleSessionError, LeaseLostError, LlmAgent, Runner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { PostgresSessionService } from '../src/index.js';
import { PG_URL, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

// An append to a current session is one statement (no BEGIN, locked read, write, COMMIT); every
// other case still gets the locked transaction's exact answer.
describePostgres('PostgresSessionService round trips: creates, reads and appends in one statement each', () => {
  const schema = uniqueSchema('append_trips');
  let pool: pg.Pool;
  let service: PostgresSessionService;
  const statements: string[] = [];
  beforeAll(async () => {
    await requirePostgres();
    pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
    // Every statement the service sends (the pool's own query() goes through a client too), by
    // its name without the schema's prefix, or its text.
    const record = (query: unknown): void => {
      const name = typeof query === 'string' ? query : ((query as { name?: string }).name ?? 'unnamed');
      statements.push(name.replace(/^troupe_[0-9a-f]+_/, ''));
    };
    pool.on('connect', (client) => {
      const clientQuery = client.query.bind(client);
      client.query = ((query: unknown, ...rest: unknown[]) => {
        record(query);
        return (clientQuery as (...args: unknown[]) => unknown)(query, ...rest);
      }) as typeof client.query;
    });
    service = new PostgresSessionService({ pool, schema });
  });
  afterAll(async () => {
    await service?.close();
    await pool?.end();
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('creates a session in one statement, and reads one (state, app and user state, events) in one', async () => {
    // The first call migrates the schema.
    await service.createSession({ appName: 'a', userId: 'warm-up' });
    statements.length = 0;
    const session = await service.createSession({ appName: 'created', userId: 'c', state: { n: 0 } });
    expect(statements).toEqual(['create_session']);
    await service.appendEvent({ session, event: createEvent({ actions: { stateDelta: { n: 1 } } }) });
    await service.appendEvent({ session, event: createEvent({ actions: { stateDelta: { 'user:theme': 'dark' } } }) });
    statements.length = 0;
    const read = await service.getSession({ appName: 'created', userId: 'c', sessionId: session.id });
    expect(statements).toEqual(['select_session']);
    expect(read!.state).toEqual({ n: 1, 'user:theme': 'dark' });
    expect(read!.events.map((e) => e.id)).toEqual(session.events.map((e) => e.id));
    statements.length = 0;
    const recent = await service.getSession({
      appName: 'created',
      userId: 'c',
      sessionId: session.id,
      numRecentEvents: 1,
    });
    const after = await service.getSession({ appName: 'created', userId: 'c', sessionId: session.id, afterVersion: 1 });
    expect(statements).toEqual(['select_session', 'select_session_after']);
    expect(recent!.events.map((e) => e.id)).toEqual([session.events[1]!.id]);
    expect(after!.events.map((e) => e.id)).toEqual([session.events[1]!.id]);
    expect(after!.increment).toEqual({ afterVersion: 1, baseEventId: session.events[0]!.id });
    // A taken id is still refused, and app: or user: keys at creation still go through a transaction.
    await expect(service.createSession({ appName: 'created', userId: 'c', sessionId: session.id })).rejects.toThrow(
      /already exists/,
    );
    statements.length = 0;
    const scoped = await service.createSession({ appName: 'created', userId: 'c', state: { 'app:mode': 'x' } });
    expect(statements[0]).toBe('BEGIN');
    expect(scoped.state).toEqual({ 'app:mode': 'x', 'user:theme': 'dark' });
  });

  it("a runner's turn takes the lease and reads the session in one statement, also incrementally", async () => {
    const model = new ScriptedModel(Array.from({ length: 40 }, (_, i) => `Answer ${i}.`));
    const runner = new Runner({ appName: 'turns', agent: new LlmAgent({ name: 'A', model }), sessionService: service });
    const session = await service.createSession({ appName: 'turns', userId: 'u' });
    statements.length = 0;
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Hello.' });
    expect(statements).toEqual(['lease_take_read', 'append_direct', 'append_direct', 'lease_release']);
    // A long session is kept between turns and read after its last version, with the lease too.
    for (let turn = 1; turn < 20; turn++)
      await runner.run({ userId: 'u', sessionId: session.id, newMessage: `Turn ${turn}.` });
    statements.length = 0;
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Last turn.' });
    expect(statements).toEqual(['lease_take_read', 'append_direct', 'append_direct', 'lease_release']);
    expect(result.status).toBe('completed');
    const stored = await service.getSession({ appName: 'turns', userId: 'u', sessionId: session.id });
    expect(stored!.events).toHaveLength(42);
    // The model saw every earlier turn (the kept copy plus what the lease read).
    expect(model.requests.at(-1)!.contents).toHaveLength(41);
  });

  it('creates a run in three round trips: BEGIN with the session lock, the checks with the insert, COMMIT', async () => {
    const session = await service.createSession({ appName: 'queued', userId: 'u' });
    statements.length = 0;
    await service.createRun({
      appName: 'queued',
      userId: 'u',
      sessionId: session.id,
      runId: 'r1',
      request: {},
      exclusive: true,
    });
    expect(statements.map((s) => s.replace(/\(hashtextextended\(.*$/, '(...)'))).toEqual([
      'BEGIN; SELECT pg_advisory_xact_lock(...)',
      'runs_check_insert',
      'COMMIT',
    ]);
    // The checks still refuse: an active run, a taken id, a missing session; nothing is stored.
    const create = (runId: string, sessionId = session.id) =>
      service.createRun({ appName: 'queued', userId: 'u', sessionId, runId, request: {}, exclusive: true });
    await expect(create('r2')).rejects.toThrow(/already has the active run 'r1'/);
    await expect(create('r1')).rejects.toThrow(/r1/);
    await expect(create('r3', 'no-such-session')).rejects.toThrow(/no-such-session/);
    const runs = await service.listRuns({ session: { appName: 'queued', userId: 'u', sessionId: session.id } });
    expect(runs.map((r) => r.runId)).toEqual(['r1']);
    await service.updateRun('r1', { status: 'completed' });
    expect((await create('r2')).status).toBe('pending');
  });

  it('stores an event of a current session with one statement, state and all', async () => {
    const session = await service.createSession({ appName: 'a', userId: 'u', state: { n: 0 } });
    statements.length = 0;
    const stored = await service.appendEvent({ session, event: createEvent({ actions: { stateDelta: { n: 1 } } }) });
    expect(statements).toEqual(['append_direct']);
    expect(session.version).toBe(1);
    const read = await service.getSession({ appName: 'a', userId: 'u', sessionId: session.id });
    expect(read!.state).toEqual({ n: 1 });
    expect(read!.events.map((e) => e.id)).toEqual([stored.id]);
    expect(read!.lastUpdateTime).toBe(session.lastUpdateTime);
  });

  it('a stale copy, a retried event and a lost lease still get the locked answers', async () => {
    const session = await service.createSession({ appName: 'a', userId: 'u' });
    const stale = await service.getSession({ appName: 'a', userId: 'u', sessionId: session.id });
    const first = createEvent({});
    await service.appendEvent({ session, event: first });
    // The same event again from the stale copy: the stored one comes back, nothing is written twice.
    const again = await service.appendEvent({ session: stale!, event: first });
    expect(again.id).toBe(first.id);
    await expect(service.appendEvent({ session: stale!, event: createEvent({}) })).rejects.toBeInstanceOf(
      StaleSessionError,
    );
    const lease = await service.leaseSession({
      appName: 'a',
      userId: 'u',
      sessionId: session.id,
      owner: 'w1',
      ttlMs: 60_000,
    });
    await service.releaseLease(lease!);
    await service.leaseSession({ appName: 'a', userId: 'u', sessionId: session.id, owner: 'w2', ttlMs: 60_000 });
    await expect(service.appendEvent({ session, event: createEvent({}), lease: lease! })).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    const read = await service.getSession({ appName: 'a', userId: 'u', sessionId: session.id });
    expect(read!.events.map((e) => e.id)).toEqual([first.id]);
  });

  it('app: and user: state take the locked transaction', async () => {
    const session = await service.createSession({ appName: 'a', userId: 'u' });
    statements.length = 0;
    await service.appendEvent({ session, event: createEvent({ actions: { stateDelta: { 'user:theme': 'dark' } } }) });
    expect(statements).toContain('BEGIN');
    expect(statements).not.toContain('append_direct');
    const read = await service.getSession({ appName: 'a', userId: 'u', sessionId: session.id });
    expect(read!.state['user:theme']).toBe('dark');
  });
});
