import type pg from 'pg';
import { ConfigurationError } from '@troupe/core';
import { SchemaVersionError } from '@troupe/core';

/** One forward step of the schema. Steps run in order, each once, inside one transaction. */
export interface Migration {
  /** The schema version after this step: 1, 2, 3, ... with no gaps. */
  version: number;
  description: string;
  /** The step's SQL, given the quoted schema name. */
  sql: (schema: string) => string;
}

/**
 * Every schema change, oldest first. Never edit a released step: append a new one. Values carry
 * their own `format` column (see `codec.ts`), so the encoding of values can evolve without a step
 * (step 2 only re-spells keys, which are SQL text without a format of their own).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, events, app: and user: state',
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        pk BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        state_format SMALLINT NOT NULL,
        state JSONB NOT NULL,
        version INTEGER NOT NULL,
        last_update_time DOUBLE PRECISION NOT NULL,
        UNIQUE (app_name, user_id, id)
      );
      CREATE TABLE ${s}.events (
        session_pk BIGINT NOT NULL REFERENCES ${s}.sessions (pk) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        timestamp DOUBLE PRECISION NOT NULL,
        format SMALLINT NOT NULL,
        data JSONB NOT NULL,
        PRIMARY KEY (session_pk, seq),
        UNIQUE (session_pk, id)
      );
      CREATE TABLE ${s}.app_state (
        app_name TEXT NOT NULL,
        key TEXT NOT NULL,
        format SMALLINT NOT NULL,
        value JSONB NOT NULL,
        PRIMARY KEY (app_name, key)
      );
      CREATE TABLE ${s}.user_state (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        format SMALLINT NOT NULL,
        value JSONB NOT NULL,
        PRIMARY KEY (app_name, user_id, key)
      );
    `,
  },
  {
    version: 2,
    description: 'session leases; U+FFFD escaped in app: and user: keys (value format 2)',
    // New columns with constant defaults: no table rewrite. A free lease expires at -infinity.
    // Keys of format 2 spell the marker U+FFFD as U+FFFD + 'fffd' (codec.ts); keys written before
    // get the same spelling, so one key never has two rows. Only these small tables are touched:
    // events are never merged, and a session's state is escaped on its first format-2 append.
    sql: (s) => `
      ALTER TABLE ${s}.sessions
        ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '',
        ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0,
        ADD COLUMN lease_expires_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity';
      UPDATE ${s}.app_state SET key = replace(key, chr(65533), chr(65533) || 'fffd') WHERE strpos(key, chr(65533)) > 0;
      UPDATE ${s}.user_state SET key = replace(key, chr(65533), chr(65533) || 'fffd') WHERE strpos(key, chr(65533)) > 0;
    `,
  },
  {
    version: 3,
    description: 'run records of background runs',
    // The session is a foreign key on its (app_name, user_id, id) key, so deleting it deletes its
    // runs; the session index serves that cascade too. request and error are JSON text, not JSONB:
    // text holds the escapes JSON.stringify writes for NUL and lone surrogates, which JSONB refuses.
    // (status, seq) lets a sweeper read one status oldest first without sorting.
    sql: (s) => `
      CREATE TABLE ${s}.runs (
        run_id TEXT PRIMARY KEY,
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        cancel_requested BOOLEAN NOT NULL,
        request TEXT NOT NULL,
        error TEXT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        FOREIGN KEY (app_name, user_id, session_id) REFERENCES ${s}.sessions (app_name, user_id, id) ON DELETE CASCADE
      );
      CREATE INDEX runs_session ON ${s}.runs (app_name, user_id, session_id, seq);
      CREATE INDEX runs_status ON ${s}.runs (status, seq);
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `schema` to the newest version this code knows. Run it inside a transaction: it takes an
 * advisory lock keyed by the schema name, so services starting together migrate once. A schema with a newer
 * version is left untouched and fails with {@link SchemaVersionError}.
 *
 * @returns the versions applied now (empty when the schema was current).
 */
export async function migrate(
  client: pg.ClientBase,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const latest = migrations.length;
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new ConfigurationError(
        `Migration ${i + 1} is numbered ${m.version}; number the steps 1, 2, 3, ... without gaps.`,
      );
  });
  const s = quoteIdentifier(schema);
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`troupe-session-schema:${schema}`]);
  // CREATE SCHEMA needs the CREATE privilege even when the schema exists, so look first.
  const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (existing.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
  );
  const { rows } = await client.query<{ version: number }>(
    `SELECT COALESCE(MAX(version), 0) AS version FROM ${s}.schema_version`,
  );
  const current = rows[0]?.version ?? 0;
  if (current > latest) {
    throw new SchemaVersionError(
      `The PostgreSQL session store in schema '${schema}' has schema version ${current}, but this @troupe/postgres knows versions up to ${latest}. It was written by a newer release: upgrade @troupe/postgres, or use another schema.`,
      current,
      latest,
    );
  }
  const applied: number[] = [];
  for (const step of migrations.slice(current)) {
    await client.query(step.sql(s));
    await client.query(`INSERT INTO ${s}.schema_version (version, description) VALUES ($1, $2)`, [
      step.version,
      step.description,
    ]);
    applied.push(step.version);
  }
  return applied;
}

/**
 * True when `schema` is already at `latest`: one read, no lock and no transaction, which is the
 * common case for every service start after the first. Anything else (no schema yet, an older or
 * newer version) is for {@link migrate} to handle and explain.
 */
export async function isCurrent(
  db: pg.Pool | pg.ClientBase,
  schema: string,
  latest: number = SCHEMA_VERSION,
): Promise<boolean> {
  try {
    const { rows } = await db.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${quoteIdentifier(schema)}.schema_version`,
    );
    return rows[0]?.version === latest;
  } catch (error) {
    // 3F000: no such schema; 42P01: no such table. Both mean "not migrated yet".
    const code = (error as { code?: unknown }).code;
    if (code === '3F000' || code === '42P01') return false;
    throw error;
  }
}

/** A schema name as an SQL identifier; the name was checked to hold only letters, digits and `_`. */
export function quoteIdentifier(name: string): string {
  return `"${name}"`;
}
