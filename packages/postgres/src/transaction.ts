import type pg from 'pg';
import { NOTHING_STORED, asStorageError, connectionLost, isConnectionError } from './pool.js';

/** What {@link inTransaction} says in the StorageErrors it raises. */
export interface TransactionReport {
  /** What the transaction does, e.g. "appending event 'e1' to session 's1'". */
  action: string;
  /** What the caller should do when the connection broke during COMMIT, so the outcome is unknown. */
  ifCommitLost: string;
  /**
   * The simple query that opens the transaction, when it does more than BEGIN in the same round
   * trip (e.g. `BEGIN; SELECT pg_advisory_xact_lock(...)`, with its values as escaped literals).
   * @default 'BEGIN'
   */
  begin?: (client: pg.PoolClient) => string;
}

/**
 * Runs `work` in a transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it
 * throws (the error is rethrown). A connection that fails on the way is discarded, never reused,
 * and the failure becomes a `StorageError` naming the action. PostgreSQL rolls back a transaction
 * whose connection drops before COMMIT, so then nothing was stored; a drop while COMMIT is on its
 * way leaves the outcome unknown, and the error says so.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  report: TransactionReport = {
    action: 'running a transaction',
    ifCommitLost: 'Check whether its changes are there before running it again.',
  },
): Promise<T> {
  const { action } = report;
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw asStorageError(action, error, NOTHING_STORED);
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
    await client.query(report.begin ? report.begin(client) : 'BEGIN');
    const result = await work(client);
    // Broken already: COMMIT would not be sent, so the server rolls back, and that is certain.
    if (broken) throw connectionLost(action, broken, NOTHING_STORED);
    try {
      await client.query('COMMIT');
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      broken ??= error as Error;
      throw connectionLost(
        action,
        error,
        `The connection broke while COMMIT was on its way, so whether it was stored is unknown. ${report.ifCommitLost}`,
      );
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
    throw asStorageError(action, error, NOTHING_STORED);
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
