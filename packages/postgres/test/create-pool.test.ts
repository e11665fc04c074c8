import { ConfigurationError, createEvent } from '@troupe/core';
import {
  createPostgresPool,
  PostgresArtifactService,
  PostgresMemoryService,
  PostgresSessionService,
} from '@troupe/postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminQuery, describePostgres, dropSchema, PG_URL, requirePostgres, uniqueSchema } from './pg-test-env.js';

// One pool for a process's three PostgreSQL stores (issue #34): `troupe api --pg` and `troupe worker
// --pg` opened one per store, up to 30 connections a process, so a handful of workers reached
// PostgreSQL's default max_connections. The stores share `createPostgresPool`'s pool and never hold
// more connections than its size.

describePostgres('createPostgresPool: one pool shared by the session, artifact and memory stores', () => {
  const schema = uniqueSchema('shared_pool');
  beforeAll(requirePostgres);
  afterAll(() => dropSchema(schema));

  it('serves the three stores at once within its size, and stays open after they close', async () => {
    const applicationName = `troupe-pool-${Math.random().toString(36).slice(2, 8)}`;
    const pool = createPostgresPool({ connectionString: PG_URL, applicationName, max: 3 });
    try {
      const sessions = new PostgresSessionService({ pool, schema });
      const artifacts = new PostgresArtifactService({ pool, schema });
      const memory = new PostgresMemoryService({ pool, schema });
      let peak = 0;
      const watch = setInterval(() => (peak = Math.max(peak, pool.totalCount)), 1);
      await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const session = await sessions.createSession({ appName: 'app', userId: `u${i}` });
          await sessions.appendEvent({
            session,
            event: createEvent({ author: 'user', content: { role: 'user', parts: [{ text: `note ${i}` }] } }),
          });
          await artifacts.saveArtifact({
            appName: 'app',
            userId: `u${i}`,
            sessionId: session.id,
            filename: 'a.txt',
            artifact: { text: `file ${i}` },
          });
          await memory.addSessionToMemory(
            (await sessions.getSession({ appName: 'app', userId: `u${i}`, sessionId: session.id }))!,
          );
        }),
      );
      clearInterval(watch);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(3);
      const [open] = await adminQuery<{ count: string }>(
        'SELECT count(*) FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      expect(Number(open!.count)).toBeLessThanOrEqual(3);
      expect((await memory.searchMemory({ appName: 'app', userId: 'u4', query: 'note' })).memories).toHaveLength(1);

      await memory.close();
      await artifacts.close();
      await sessions.close();
      // A pool passed in is the caller's: still open.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a bad size or a missing connection string, naming the option', () => {
    expect(() => createPostgresPool({ connectionString: PG_URL, max: 0 })).toThrow(ConfigurationError);
    expect(() => createPostgresPool({ connectionString: PG_URL, max: 0 })).toThrow(
      "createPostgresPool option 'max' must be a whole number of at least 1; got 0. Omit it for 10.",
    );
    expect(() => createPostgresPool({ connectionString: '' })).toThrow(/createPostgresPool option 'connectionString'/);
  });
});
