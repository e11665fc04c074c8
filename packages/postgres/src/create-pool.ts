import type pg from 'pg';
import { ConfigurationError } from '@troupe/core';
import { resolveOptions } from './options.js';
import { openPool } from './pool.js';

/** Options of {@link createPostgresPool}: those of the services' own pools, and the pool's size. */
export interface PostgresPoolOptions {
  /** Where the database is, e.g. `postgres://user:password@127.0.0.1:5432/app`. */
  connectionString: string;
  /** @default 'troupe' */
  applicationName?: string;
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** @default 5000 */
  idleInTransactionTimeoutMs?: number;
  /** Most connections open at once. @default 10 */
  max?: number;
}

/**
 * A `pg` Pool with the settings the PostgreSQL services give the pool they open themselves (its
 * `application_name`, a connect timeout, an idle-in-transaction timeout), for one process's
 * session, artifact and memory services to share as `{ pool }`: one set of connections instead of
 * three (issue #34: a worker held about 20, so five reached PostgreSQL's default
 * `max_connections`). The services leave a pool passed in open: end it after closing them.
 */
export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  const { max, ...settings } = options ?? ({} as PostgresPoolOptions);
  const resolved = resolveOptions(settings, 'createPostgresPool');
  if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
    throw new ConfigurationError(
      `createPostgresPool option 'max' must be a whole number of at least 1; got ${JSON.stringify(max)}. Omit it for 10.`,
    );
  }
  return openPool({
    connectionString: resolved.connectionString!,
    applicationName: resolved.applicationName,
    connectTimeoutMs: resolved.connectTimeoutMs,
    idleInTransactionTimeoutMs: resolved.idleInTransactionTimeoutMs,
    ...(max !== undefined ? { max } : {}),
  });
}
