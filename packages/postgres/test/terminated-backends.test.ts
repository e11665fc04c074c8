import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StorageError, createEvent } from '@troupe/core';
import { PostgresSessionService } from '../src/index.js';
import { waitFor } from '../../core/test/wait.js';
import {
  appendUnderFaults,
  expectConsistent,
  expectRetryableStorageError,
  holdAppend,
  type LoadProgress,
} from './fault-load.js';
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
    const progress: LoadProgress = { appended: 0, failed: 0 };
    // The first session's last append waits behind a held row: the load cannot finish before the
    // last strike, and that strike certainly ends an operation in flight.
    const held = await holdAppend(PG_URL, schema, keys[0]!.sessionId, perSession);
    let killed = 0;
    const running = appendUnderFaults(service, keys, perSession, Date.now() + 45_000, progress);
    running.catch(() => undefined);
    try {
      // Strikes at points of the load's progress, not of the clock: however busy the machine, the
      // load gets on between them.
      for (const at of [10, 40, 70, 100]) {
        await waitFor(() => progress.appended >= at, `${at} appends`, 30_000);
        killed += await terminate(applicationName);
      }
      await waitFor(
        async () =>
          (
            await adminQuery('SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = $2', [
              applicationName,
              'Lock',
            ])
          ).length === 1,
        'the held append to wait on its lock',
        30_000,
      );
      const failedBefore = progress.failed;
      killed += await terminate(applicationName);
      await waitFor(() => progress.failed > failedBefore, 'the held append to fail', 30_000);
    } finally {
      await held.release();
    }
    const load = await running;

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
  }, 60_000);

  it('a transaction cut after some of its writes stores none of them', async () => {
    const applicationName = uniqueName('cut');
    const service = new PostgresSessionService({ connectionString: PG_URL, schema, applicationName });
    const session = await service.createSession({ appName, userId: 'cut', state: { before: true } });
    // An uncommitted event at the next seq holds the append at its last statement, after it has
    // written the app: and user: keys; ending its backend there cuts the transaction mid-way.
    const held = await holdAppend(PG_URL, schema, session.id, 1);
    try {
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
        'the append to wait on its lock',
      );
      expect(await terminate(applicationName)).toBeGreaterThan(0);
      await expect(append).rejects.toBeInstanceOf(StorageError);
      await append.catch(expectRetryableStorageError);
    } finally {
      await held.release();
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
      await waitFor(() => pool.idleCount === 0, 'the pool to drop its ended connections');
      expect((await service.getSession({ appName, userId: 'pooled', sessionId: session.id }))?.id).toBe(session.id);
      await service.close();
      expect(pool.listenerCount('error')).toBe(before);
    } finally {
      await pool.end();
    }
  });
});
