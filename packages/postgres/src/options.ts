import type pg from 'pg';
import { ConfigurationError } from '@troupe/core';

/** Options of `PostgresSessionService`. Give `connectionString` or `pool`. */
export interface PostgresSessionServiceOptions {
  /** Where the database is, e.g. `postgres://user:password@127.0.0.1:5432/app`. The service opens and closes its own pool. */
  connectionString?: string;
  /**
   * A pool you own and configure (size, TLS, timeouts, `application_name`). `close()` leaves it open.
   * While the service is open it listens for the pool's `'error'` events (a connection that breaks
   * while idle), which would otherwise end the process; your own listeners still get them.
   */
  pool?: pg.Pool;
  /**
   * The PostgreSQL schema holding the tables; created on first use. Letters, digits and `_` only.
   * @default 'troupe'
   */
  schema?: string;
  /**
   * The `application_name` of the service's own connections, shown in `pg_stat_activity`. Up to 63
   * printable ASCII characters. Not with `pool` (set it on your pool).
   * @default 'troupe'
   */
  applicationName?: string;
  /**
   * How long opening a connection may take before the call fails with `StorageError`. Not with `pool`
   * (set `connectionTimeoutMillis` on your pool).
   * @default 5000
   */
  connectTimeoutMs?: number;
  /**
   * How long one of the service's transactions may sit idle between statements before PostgreSQL
   * ends it (`idle_in_transaction_session_timeout`). Its own transactions take milliseconds; this
   * bounds how long a process frozen or cut off in the middle of one blocks the session for every
   * other process. Not with `pool` (set `idle_in_transaction_session_timeout` on your pool).
   * @default 5000
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * How long `checkHealth()` waits for `SELECT 1` before it reports the store unavailable.
   * @default 3000
   */
  healthTimeoutMs?: number;
}

/** The options with defaults applied; exactly one of `connectionString` and `pool`. */
export type ResolvedOptions = Required<
  Pick<
    PostgresSessionServiceOptions,
    'schema' | 'applicationName' | 'connectTimeoutMs' | 'idleInTransactionTimeoutMs' | 'healthTimeoutMs'
  >
> &
  ({ connectionString: string; pool?: undefined } | { pool: pg.Pool; connectionString?: undefined });

/**
 * Applies the defaults, once; rejects invalid options with the option, the value and the fix.
 * `service` names the class in messages (the artifact and memory stores take the same options).
 */
export function resolveOptions(
  options: PostgresSessionServiceOptions,
  service = 'PostgresSessionService',
): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `${service} needs an options object; got ${String(options)}. Write new ${service}({ connectionString: 'postgres://user@127.0.0.1:5432/app' }).`,
    );
  }
  const {
    connectionString,
    pool,
    schema = 'troupe',
    applicationName,
    connectTimeoutMs,
    idleInTransactionTimeoutMs,
    healthTimeoutMs = 3000,
  } = options;
  if (pool !== undefined && connectionString !== undefined) {
    throw new ConfigurationError(
      `${service} got both 'connectionString' and 'pool'. Give one: the connection string to let the service open its own pool, or your pool.`,
    );
  }
  if (pool === undefined && (typeof connectionString !== 'string' || connectionString.length === 0)) {
    throw new ConfigurationError(
      `${service} option 'connectionString' must be a non-empty string; got ${JSON.stringify(connectionString)}. Pass e.g. { connectionString: 'postgres://user@127.0.0.1:5432/app' }, or { pool }.`,
    );
  }
  if (
    pool !== undefined &&
    !(
      typeof pool === 'object' &&
      pool !== null &&
      typeof pool.connect === 'function' &&
      typeof pool.query === 'function'
    )
  ) {
    throw new ConfigurationError(
      `${service} option 'pool' must be a pg Pool; got ${String(pool)}. Pass new Pool({ ... }) from 'pg', or use connectionString.`,
    );
  }
  if (!(typeof schema === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))) {
    throw new ConfigurationError(
      `${service} option 'schema' must be 1 to 63 letters, digits or '_', not starting with a digit; got ${JSON.stringify(schema)}. Omit it for 'troupe'.`,
    );
  }
  if (
    pool !== undefined &&
    (applicationName !== undefined || connectTimeoutMs !== undefined || idleInTransactionTimeoutMs !== undefined)
  ) {
    const name =
      applicationName !== undefined
        ? 'applicationName'
        : connectTimeoutMs !== undefined
          ? 'connectTimeoutMs'
          : 'idleInTransactionTimeoutMs';
    throw new ConfigurationError(
      `${service} option '${name}' applies to the pool the service opens, but 'pool' was given. Set application_name, connectionTimeoutMillis or idle_in_transaction_session_timeout on your pool instead.`,
    );
  }
  if (
    applicationName !== undefined &&
    !(typeof applicationName === 'string' && /^[\x20-\x7e]{1,63}$/.test(applicationName))
  ) {
    throw new ConfigurationError(
      `${service} option 'applicationName' must be 1 to 63 printable ASCII characters; got ${JSON.stringify(applicationName)}. Omit it for 'troupe'.`,
    );
  }
  checkDuration(service, 'connectTimeoutMs', connectTimeoutMs);
  checkDuration(service, 'idleInTransactionTimeoutMs', idleInTransactionTimeoutMs);
  checkDuration(service, 'healthTimeoutMs', healthTimeoutMs);
  const common = {
    schema,
    applicationName: applicationName ?? 'troupe',
    connectTimeoutMs: connectTimeoutMs ?? 5000,
    idleInTransactionTimeoutMs: idleInTransactionTimeoutMs ?? 5000,
    healthTimeoutMs,
  };
  return pool !== undefined ? { ...common, pool } : { ...common, connectionString: connectionString! };
}

function checkDuration(service: string, name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (!(typeof value === 'number' && Number.isInteger(value) && value > 0)) {
    throw new ConfigurationError(
      `${service} option '${name}' must be a positive whole number of milliseconds; got ${JSON.stringify(value)}. Omit it for the default.`,
    );
  }
}
