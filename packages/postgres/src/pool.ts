import pg from 'pg';
import { redact, StorageError } from '@troupe/core';
import type { ResolvedOptions } from './options.js';

/**
 * How the service survives a lost database connection (a PostgreSQL restart, a failover, a backend
 * ended with `pg_terminate_backend`, a network cut):
 *
 * - pg emits `'error'` on an idle pooled client whose connection breaks, and on a checked-out one
 *   (`transaction.ts` listens there); an `'error'` event nobody listens to ends the Node process.
 *   The pool has already discarded the broken client, and no operation was running on it, so there
 *   is nothing to report to anyone: the next operation opens a new connection, and if the server is
 *   still away, that operation fails with a {@link StorageError} saying so.
 * - An operation whose connection fails (or cannot be opened) rejects with a StorageError; other
 *   errors (a bad value, a stale session) pass through unchanged.
 */

/** SQLSTATE classes and codes that mean the server or the connection failed, not the request. */
const SERVER_UNAVAILABLE = /^(08|53|58|57P0[1-4])/;
/** Node socket errors on connect or mid-query. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/** pg's own messages for a connection that ended, never opened in time, or is unusable after an error. */
const PG_CONNECTION_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|connection timeout|Query read timeout/i;

/** True when `error` means the connection to PostgreSQL failed (the operation may succeed on a new one). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_UNAVAILABLE.test(code))) return true;
  if (PG_CONNECTION_MESSAGES.test(error.message)) return true;
  // Connecting to a host name with several addresses fails with one error per address.
  return error instanceof AggregateError && error.errors.some(isConnectionError);
}

/** What a StorageError says about the data when the connection broke before a transaction's COMMIT. */
export const NOTHING_STORED = 'Nothing was stored.';

/**
 * What a StorageError says when a single statement that writes was cut: PostgreSQL may have
 * committed it just before the connection broke. Every such statement of the service can be repeated.
 */
export const MAYBE_DONE = 'It may or may not have taken effect; repeating the call is safe.';

/**
 * The StorageError for a connection failure while doing `action` ("appending event 'e1' to session
 * 's1'"). `outcome` says what became of the data, for operations that write.
 */
export function connectionLost(action: string, error: unknown, outcome?: string): StorageError {
  const reason = error instanceof Error ? describe(error) : String(error);
  // The driver's text may hold the connection string (with its password); the message reaches sessions and HTTP answers.
  return new StorageError(
    redact(
      `PostgreSQL could not be reached while ${action}: ${reason}.${outcome ? ` ${outcome}` : ''} The service opens a new connection for the next call; retry once the database is reachable.`,
    ),
    { cause: error },
  );
}

/** `error` as a StorageError when it is a connection failure; unchanged otherwise. */
export function asStorageError(action: string, error: unknown, outcome?: string): unknown {
  if (error instanceof StorageError || !isConnectionError(error)) return error;
  return connectionLost(action, error, outcome);
}

function describe(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const message =
    error.message ||
    (error instanceof AggregateError
      ? error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ')
      : '');
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/** The settings of a pool the service opens itself. */
export interface OwnPoolSettings {
  connectionString: string;
  applicationName: string;
  connectTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** @default pg's 10 */
  max?: number;
}

/** Opens the service's own pool. */
export function openPool(settings: OwnPoolSettings): pg.Pool {
  return new pg.Pool({
    connectionString: settings.connectionString,
    ...(settings.max !== undefined ? { max: settings.max } : {}),
    // Names the service's connections in pg_stat_activity, so an operator (or a test) can tell them apart.
    application_name: settings.applicationName,
    // Without it, connecting to an unreachable host waits for the operating system's TCP timeout (minutes).
    connectionTimeoutMillis: settings.connectTimeoutMs,
    // A process frozen (SIGSTOP, a VM pause) or cut off inside a write keeps its row locks, and every
    // other process writing that session would wait for it for ever; the server ends such a
    // transaction instead, and the session's lease lets the next owner in.
    idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
  });
}

/** The pool a service works on, and how it lets go of it when the service closes. */
export interface ServicePool {
  pool: pg.Pool;
  /** Ends the pool the service opened (a pool passed in stays open), then stops listening on it. */
  release: () => Promise<void>;
}

/** The pool passed in the options, or the service's own, opened from them; either way listened on for idle errors. */
export function servicePool(resolved: ResolvedOptions): ServicePool {
  const owned = resolved.pool === undefined;
  const pool =
    resolved.pool ??
    openPool({
      connectionString: resolved.connectionString,
      applicationName: resolved.applicationName,
      connectTimeoutMs: resolved.connectTimeoutMs,
      idleInTransactionTimeoutMs: resolved.idleInTransactionTimeoutMs,
    });
  const stopListening = listenForIdleErrors(pool);
  return {
    pool,
    release: async () => {
      if (owned) await pool.end();
      // After end(): a connection breaking while the pool closes must still not end the process.
      stopListening();
    },
  };
}

/**
 * Keeps a broken idle connection from ending the process (see the top of this file). Returns the
 * function that removes the listener, for a pool the service does not own and outlives.
 */
export function listenForIdleErrors(pool: pg.Pool): () => void {
  const onError = (): void => undefined;
  pool.on('error', onError);
  return () => {
    pool.off('error', onError);
  };
}

/**
 * Resolves when `SELECT 1` succeeds within `timeoutMs`; otherwise rejects with a StorageError, so a
 * health check never hangs on a server that accepts connections but does not answer.
 */
export async function probe(pool: pg.Pool, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const query = pool.query('SELECT 1');
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StorageError(
            `PostgreSQL did not answer SELECT 1 within ${timeoutMs} ms. Check that the server is up and reachable; the service keeps trying on every call.`,
          ),
        ),
      timeoutMs,
    );
  });
  // After a timeout the query may still fail; that outcome has been reported as the timeout already.
  query.catch(() => undefined);
  try {
    await Promise.race([query, late]);
  } catch (error) {
    if (error instanceof StorageError) throw error;
    throw isConnectionError(error)
      ? connectionLost('checking its health', error)
      : new StorageError(redact(`PostgreSQL failed SELECT 1: ${String(error)}.`), { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
