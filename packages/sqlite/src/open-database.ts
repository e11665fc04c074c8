import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ResolvedOptions } from './options.js';
import { SCHEMA_VERSION, migrate } from './schema.js';
import { prepareStatements, type Statements } from './statements.js';
import { folderError, guarded, type StorageSite } from './storage-errors.js';

/**
 * Opens the file for a service: creates its folder, opens it in WAL mode, migrates its schema
 * forward and prepares the statements. Storage failures become a `StorageError` naming the file
 * and the step; a file written by a newer release fails with `SchemaVersionError`. Nothing is
 * left open when it fails.
 */
export function openDatabase(options: ResolvedOptions): { db: Database.Database; sql: Statements } {
  const db = openSqliteFile(options, (opened) => {
    guarded(
      siteOf(options),
      true,
      () => `bring its schema to version ${SCHEMA_VERSION}`,
      () => migrate(opened, `'${options.path}'`),
    );
  });
  try {
    return { db, sql: prepareStatements(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens the file (creating its folder) in WAL mode with the options' busy timeout and `synchronous`
 * setting, then runs `setUp` (creating or migrating tables). Storage failures become a
 * `StorageError` naming `store` (default: the session store); nothing is left open when it fails.
 * The artifact and memory stores open their tables in the same file this way.
 */
export function openSqliteFile(
  options: ResolvedOptions,
  setUp: (db: Database.Database) => void,
  store?: StorageSite['store'],
): Database.Database {
  const { path, busyTimeoutMs, synchronous, readonly } = options;
  const site = siteOf(options, store);
  if (path !== ':memory:' && !readonly) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw folderError(error, path, store);
    }
  }
  const db = guarded(
    site,
    false,
    () => 'open it',
    () => new Database(path, { timeout: busyTimeoutMs, readonly }),
  );
  try {
    guarded(
      site,
      false,
      () => 'open it',
      () => {
        // A read-only connection cannot change the journal mode; a file a service wrote is in WAL mode already.
        if (!readonly) db.pragma('journal_mode = WAL');
        db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
      },
    );
    guarded(
      site,
      true,
      () => 'create its tables',
      () => setUp(db),
    );
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Where a store's failures happen, for their messages: its file and settings, and which store it is. */
export function siteOf({ path, busyTimeoutMs, readonly }: ResolvedOptions, store?: StorageSite['store']): StorageSite {
  return store === undefined ? { path, busyTimeoutMs, readonly } : { path, busyTimeoutMs, readonly, store };
}
