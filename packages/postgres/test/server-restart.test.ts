import { expect, it } from 'vitest';
import { waitFor } from '../../core/test/wait.js';
import { PostgresSessionService } from '../src/index.js';
import {
  appendUnderFaults,
  expectConsistent,
  expectRetryableStorageError,
  holdAppend,
  type LoadProgress,
} from './fault-load.js';
import { describePostgres } from './pg-test-env.js';
import { usePrivatePostgres } from './private-postgres.js';

/**
 * A real PostgreSQL restart, on a private server (the shared one serves other test files at the
 * same time). A process that loses its database must keep running and recover by itself.
 */
describePostgres('PostgresSessionService across a PostgreSQL restart', () => {
  const server = usePrivatePostgres();

  it('the server stopped mid-load: calls fail with StorageError while it is down, and succeed again once it is back; sessions stay consistent', async () => {
    const pg = server();
    const service = new PostgresSessionService({
      connectionString: pg.url,
      connectTimeoutMs: 2000,
      healthTimeoutMs: 1000,
    });
    const appName = 'restart';
    const keys = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const session = await service.createSession({ appName, userId: `user-${i}` });
        return { appName, userId: `user-${i}`, sessionId: session.id };
      }),
    );
    const perSession = 40;
    const progress: LoadProgress = { appended: 0, failed: 0 };
    // The first session's last append waits behind a held row until the server goes away (with the
    // row): however fast the load, it cannot finish before the stop, and one append is in flight then.
    const held = await holdAppend(pg.url, 'troupe', keys[0]!.sessionId, perSession);
    const load = appendUnderFaults(service, keys, perSession, Date.now() + 60_000, progress);
    // Fail the test rather than leave the load running if a step below throws.
    load.catch(() => undefined);

    await waitFor(() => progress.appended >= 20, 'twenty appends before the stop');
    await pg.stop();
    await held.release();
    // While it is down: every call fails with a StorageError, and so does the health check.
    await expect(service.checkHealth()).rejects.toSatisfy((error) => (expectRetryableStorageError(error), true));
    // Counted after a failed call, so answers that arrived just before the stop have been handled.
    const stoppedAt = progress.appended;
    expect(stoppedAt).toBeLessThan(keys.length * perSession);
    await expect(service.getSession(keys[0]!)).rejects.toSatisfy((error) => (expectRetryableStorageError(error), true));
    await expect(service.leaseSession({ ...keys[0]!, owner: 'o', ttlMs: 1000 })).rejects.toSatisfy(
      (error) => (expectRetryableStorageError(error), true),
    );
    // Every session's writer retries every 10 ms: once each has met the outage again, none got through.
    const failedAt = progress.failed;
    await waitFor(() => progress.failed >= failedAt + keys.length, 'the load to meet the stopped server');
    expect(progress.appended).toBe(stoppedAt);

    await pg.start();
    const result = await load;
    expect(result.storageErrors.length).toBeGreaterThan(0);
    for (const error of result.storageErrors) expectRetryableStorageError(error);
    await service.checkHealth();
    for (const key of keys) await expectConsistent(service, key, perSession);
    const lease = await service.leaseSession({ ...keys[0]!, owner: 'after', ttlMs: 5000 });
    expect(lease?.owner).toBe('after');
    await service.close();

    const fresh = new PostgresSessionService({ connectionString: pg.url });
    try {
      for (const key of keys) await expectConsistent(fresh, key, perSession);
    } finally {
      await fresh.close();
    }
  }, 120_000);
});
