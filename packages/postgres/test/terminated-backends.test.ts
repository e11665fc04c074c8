import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StorageError, createEvent } from '@troupe/core';
import { PostgresSessionService } from '../src/index.js';
import { appendUnderFaults, expectConsistent, expectRetryableStorageError } from './fault-load.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

/**
 * Backends ended by `pg_terminate_backend`, as a failover or an operator would. Each service gets an
 * `application_name` of its own, so only its connections are ended, never another test's.
 */
describePostgres('PostgresSessionService when its connections are terminated', () => {
  const schema = uniqueSchema('terminated');
  const appName = `app-${Math.random().toString(36).slice(2, 8)}`;
  const uniqueName = (label: string) => `troupe-test-${label}-${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  /**
   * Ends every backend named `applicationName`; returns how many. The pids are chosen first, in a
   * materialized CTE: in one WHERE clause PostgreSQL may call pg_terminate_backend before it has
   * checked the name, ending every connection on the server.
   */
  const terminate = async (applicationName: string): Promise<number> =>
    (
      await adminQuery<{ pid: number }>(
        'WITH mine AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()) SELECT pid FROM mine WHERE pg_terminate_backend(pid)',
        [applicationName],
      )
    ).length;

  it('terminating its backends during concurrent appends: only the operations in flight fail, with StorageError; every session stays consistent', async () => {
    const applicationName = uniqueName('kill');
    const service = new PostgresSessionService({ connectionString: PG_URL, schema, applicationName });
    const keys = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const session = await service.createSession({ appName, userId: `user-${i}` });
        return { appName, userId: `user-${i}`, sessionId: session.id };
      }),
    );
    const perSession = 25;
    let killing = true;
    let killed = 0;
    const killer = (async () => {
      while (killing) {
        killed += await terminate(applicationName);
        await new Promise((resolve) => setTimeout(resolve, 80 + Math.random() * 40));
      }
    })();
    let load;
    try {
      load = await appendUnderFaults(service, keys, perSession, Date.now() + 12_000);
    } finally {
      killing = false;
      await killer;
    }

    expect(killed).toBeGreaterThan(0);
    expect(load.storageErrors.length).toBeGreaterThan(0);
    for (const error of load.storageErrors) expectRetryableStorageError(error);
    // The same service keeps working once nobody ends its connections.
    await service.checkHealth();
    const reader = new PostgresSessionService({ connectionString: PG_URL, schema });
    try {
      for (const key of keys) await expectConsistent(service, key, perSession);
      for (const key of keys) await expectConsistent(reader, key, perSession);
    } finally {
      await reader.close();
      await service.close();
    }
  });

  it('a transaction cut after some of its writes stores none of them', async () => {
    const applicationName = uniqueName('cut');
    const service = new PostgresSessionService({ connectionString: PG_URL, schema, applicationName });
    const session = await service.createSession({ appName, userId: 'cut', state: { before: true } });
    // An uncommitted event at the next seq holds the append at its last statement, after it has
    // written the app: and user: keys; ending its backend there cuts the transaction mid-way.
    const blocker = new pg.Client({ connectionString: PG_URL });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO "${schema}".events (session_pk, seq, id, timestamp, format, data) SELECT pk, 1, 'blocker', 0, 1, '{}' FROM "${schema}".sessions WHERE id = $1`,
        [session.id],
      );
      const append = service.appendEvent({
        session,
        event: createEvent({ author: 'A', actions: { stateDelta: { 'app:cut': 1, 'user:cut': 2, mine: 3 } } }),
      });
      append.catch(() => undefined);
      await waitFor(
        async () =>
          (
            await adminQuery('SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = $2', [
              applicationName,
              'Lock',
            ])
          ).length === 1,
      );
      expect(await terminate(applicationName)).toBeGreaterThan(0);
      await expect(append).rejects.toBeInstanceOf(StorageError);
      await append.catch(expectRetryableStorageError);
      await blocker.query('ROLLBACK');
    } finally {
      await blocker.end();
    }
    const got = (await service.getSession({ appName, userId: 'cut', sessionId: session.id }))!;
    expect(got.state).toEqual({ before: true });
    expect(got.events).toEqual([]);
    expect(got.version).toBe(0);
    expect(
      await adminQuery(`SELECT key FROM "${schema}".app_state WHERE app_name = $1 AND key = 'app:cut'`, [appName]),
    ).toEqual([]);
    await service.close();
  });

  it('a pool passed in: its idle connections dropping does not end the process; the service stops listening on close()', async () => {
    const applicationName = uniqueName('own-pool');
    const pool = new pg.Pool({ connectionString: PG_URL, application_name: applicationName, max: 3 });
    try {
      const before = pool.listenerCount('error');
      const service = new PostgresSessionService({ pool, schema });
      const session = await service.createSession({ appName, userId: 'pooled' });
      expect(pool.listenerCount('error')).toBe(before + 1);
      expect(pool.idleCount).toBeGreaterThan(0);
      expect(await terminate(applicationName)).toBeGreaterThan(0);
      await waitFor(async () => pool.idleCount === 0);
      expect((await service.getSession({ appName, userId: 'pooled', sessionId: session.id }))?.id).toBe(session.id);
      await service.close();
      expect(pool.listenerCount('error')).toBe(before);
    } finally {
      await pool.end();
    }
  });
});

/** Polls `condition` every 20 ms for up to 5 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('The condition did not hold within 5 s.');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
