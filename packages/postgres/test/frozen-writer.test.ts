import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresSessionService } from '../src/index.js';
import { PG_URL, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

// A process frozen (SIGSTOP, a paused VM) in the middle of a write holds its row locks: without a
// bound, every other process writing that session waits for it for ever, so a worker taking over a
// frozen worker's run could not store anything (found by the queue's frozen-worker test).
describePostgres('a writer frozen inside a transaction', () => {
  const schema = uniqueSchema('frozen_writer');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('blocks the session for others no longer than idleInTransactionTimeoutMs', async () => {
    const frozen = new PostgresSessionService({ connectionString: PG_URL, schema, idleInTransactionTimeoutMs: 300 });
    const other = new PostgresSessionService({ connectionString: PG_URL, schema });
    try {
      const session = await frozen.createSession({ appName: 'app', userId: 'u' });
      // One of the frozen service's own connections, stopped between two statements of a write
      // that locked the session row, as a process stopped mid-append would leave it.
      const connection = await (frozen as unknown as { pool: pg.Pool }).pool.connect();
      connection.on('error', () => undefined);
      await connection.query('BEGIN');
      await connection.query(`SELECT 1 FROM "${schema}".sessions WHERE id = $1 FOR UPDATE`, [session.id]);
      const started = Date.now();
      const lease = await other.leaseSession({
        appName: 'app',
        userId: 'u',
        sessionId: session.id,
        owner: 'next',
        ttlMs: 10_000,
      });
      expect(lease?.owner).toBe('next');
      expect(Date.now() - started).toBeLessThan(3_000);
      connection.release(true);
    } finally {
      await other.close();
      await frozen.close();
    }
  });

  it('refuses a bad idleInTransactionTimeoutMs, and the option with a pool of the caller', async () => {
    expect(() => new PostgresSessionService({ connectionString: PG_URL, idleInTransactionTimeoutMs: 0 })).toThrow(
      /'idleInTransactionTimeoutMs' must be a positive whole number of milliseconds; got 0/,
    );
    const pool = { connect() {}, query() {} } as unknown as pg.Pool;
    expect(() => new PostgresSessionService({ pool, idleInTransactionTimeoutMs: 1000 })).toThrow(
      /'idleInTransactionTimeoutMs' applies to the pool the service opens/,
    );
  });
});
