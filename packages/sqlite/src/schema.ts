import type BetterSqlite3 from 'better-sqlite3';
import { ConfigurationError } from '@troupe/core';
import { SchemaVersionError } from '@troupe/core';

/** One forward step of the schema. Steps run in order, each once, inside one transaction. */
export interface Migration {
  /** The schema version after this step: 1, 2, 3, ... with no gaps. */
  version: number;
  description: string;
  sql: string;
}

/**
 * Every schema change, oldest first. Never edit a released step: append a new one. Values carry
 * their own `format` column (see `codec.ts`), so the encoding of values can evolve without a step.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, events, app: and user: state',
    sql: `
      CREATE TABLE sessions (
        pk INTEGER PRIMARY KEY,
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        state_format INTEGER NOT NULL,
        state TEXT NOT NULL,
        version INTEGER NOT NULL,
        last_update_time INTEGER NOT NULL,
        UNIQUE (app_name, user_id, id)
      );
      CREATE TABLE events (
        session_pk INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        timestamp INTEGER NOT NULL,
        format INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (session_pk, seq)
      );
      CREATE UNIQUE INDEX events_session_id ON events (session_pk, id);
      CREATE TABLE app_state (
        app_name TEXT NOT NULL,
        key TEXT NOT NULL,
        format INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (app_name, key)
      ) WITHOUT ROWID;
      CREATE TABLE user_state (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        key TEXT NOT NULL,
        format INTEGER NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (app_name, user_id, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: 'session leases',
    // On the sessions row, so the lease check of an append reads the row it already reads.
    // Owner '' and expiry 0 mean free; the epoch counts acquisitions (0: never leased).
    sql: `
      ALTER TABLE sessions ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
      ALTER TABLE sessions ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN lease_expires_at INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 3,
    description: 'run records of background runs',
    // seq is the rowid, with AUTOINCREMENT so that it never goes back (a plain rowid reuses the
    // number of a deleted newest row): it orders runs across the table. run_id is the key callers
    // use, unique. Every index ends with the rowid, so (status) lists a status in seq order.
    // request and error are JSON text; a session's runs are deleted with it, in its transaction.
    sql: `
      CREATE TABLE runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        cancel_requested INTEGER NOT NULL,
        request TEXT NOT NULL,
        error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX runs_session ON runs (app_name, user_id, session_id, seq);
      CREATE INDEX runs_status ON runs (status);
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to the newest schema this code knows, applying the missing steps in one
 * write transaction (so two processes opening a fresh file do not both migrate). A current schema
 * is recognised with a read alone, so a file this process may only read still opens. A database
 * with a newer schema is left untouched and fails with {@link SchemaVersionError}.
 *
 * @returns the versions applied now (empty when the schema was current).
 */
export function migrate(
  db: BetterSqlite3.Database,
  where: string,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  const latest = migrations.length;
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new ConfigurationError(
        `Migration ${i + 1} is numbered ${m.version}; number the steps 1, 2, 3, ... without gaps.`,
      );
  });
  if (checkedVersion(db, where, latest) === latest) return [];
  const run = db.transaction((): number[] => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    // Read again under the write lock: another process may have migrated since the first read.
    const current = checkedVersion(db, where, latest);
    const record = db.prepare<[number, string, number]>(
      'INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)',
    );
    const applied: number[] = [];
    for (const step of migrations.slice(current)) {
      db.exec(step.sql);
      record.run(step.version, step.description, Date.now());
      applied.push(step.version);
    }
    return applied;
  });
  return run.immediate();
}

/** The schema version of the file (0 when it has none yet); throws when it is newer than `latest`. */
export function checkedVersion(db: BetterSqlite3.Database, where: string, latest: number): number {
  const current = schemaVersion(db);
  if (current > latest) {
    throw new SchemaVersionError(
      `The SQLite session store ${where} has schema version ${current}, but this @troupe/sqlite knows versions up to ${latest}. It was written by a newer release: upgrade @troupe/sqlite, or open another file.`,
      current,
      latest,
    );
  }
  return current;
}

function schemaVersion(db: BetterSqlite3.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (!table) return 0;
  return (
    db.prepare<[], { version: number | null }>('SELECT MAX(version) AS version FROM schema_version').get()?.version ?? 0
  );
}
