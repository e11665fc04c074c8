import type pg from 'pg';
import { asStorageError, connectionLost, isConnectionError } from './pool.js';

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (the error is rethrown). A connection that fails on the way is discarded, never reused,
 * and the failure becomes a `StorageError` naming `action`. PostgreSQL rolls back a transaction
 * whose connection drops before COMMIT, so then nothing was stored; a drop during COMMIT itself
 * leaves the outcome unknown, and the error says so.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, action = 'running a transaction'): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw asStorageError(action, error);
  }
  // A checked-out client has no listener of the pool's: a connection that breaks between two of
  // our queries would emit an 'error' nobody hears, which ends the process. Keep it; the next query
  // fails with it anyway, and the client is then released as broken.
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    try {
      await client.query('COMMIT');
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      broken ??= error as Error;
      throw connectionLost(action, error, 'The connection broke during COMMIT, so whether it was stored is unknown: read it back, or retry (an event whose id is stored is not stored again).');
    }
    return result;
  } catch (error) {
    if (!broken) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is in an unknown state: hand the reason to the pool, which closes it.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
    }
    throw asStorageError(action, error);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
