import { ConfigurationError } from '@troupe/core';

/** Options of {@link SqliteSessionService}. */
export interface SqliteSessionServiceOptions {
  /**
   * The database file. It and its folder are created when missing; other services and processes
   * may open the same file. `':memory:'` gives a private database that ends with the service.
   */
  path: string;
  /**
   * How long a write waits for another connection (another service or process on the same file)
   * to finish its write before failing with a `StorageError` (SQLite's `SQLITE_BUSY`), in
   * milliseconds. better-sqlite3 is synchronous, so the wait holds this thread; writes take
   * microseconds, so waits are short.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` setting. `'normal'` (with WAL) never corrupts the file and loses no
   * committed append when the process crashes; only a power cut or an OS crash may lose the last
   * appends. `'full'` syncs every append to disk as well, at some cost in appends per second.
   * @default 'normal'
   */
  synchronous?: 'normal' | 'full';
  /**
   * Opens the file for reading only (a dashboard, a backup reader, a replica): sessions can be
   * read and listed, and every write fails with a `StorageError`. The file must exist and already
   * be at this release's schema version, since migrating it would write. SQLite still needs its
   * folder writable, or the file's `-wal` and `-shm` companions present, to read a WAL file.
   * @default false
   */
  readonly?: boolean;
}

/** The options with their defaults applied. */
export type ResolvedOptions = Required<SqliteSessionServiceOptions>;

/**
 * Checks `options` and applies the defaults; a wrong option fails with its name, value and fix.
 * `service` names the class in messages (the artifact and memory stores take the same options).
 */
export function resolveOptions(
  options: SqliteSessionServiceOptions,
  service = 'SqliteSessionService',
): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(
      `${service} needs an options object; got ${String(options)}. Write new ${service}({ path: 'sessions.db' }).`,
    );
  }
  const { path, busyTimeoutMs = 5000, synchronous = 'normal', readonly = false } = options;
  if (typeof path !== 'string' || path.length === 0) {
    throw new ConfigurationError(
      `${service} option 'path' must be a non-empty file path; got ${JSON.stringify(path)}. Pass e.g. { path: '.troupe/sessions.db' }, or ':memory:' for a private database.`,
    );
  }
  if (!(Number.isInteger(busyTimeoutMs) && busyTimeoutMs >= 0)) {
    throw new ConfigurationError(
      `${service} option 'busyTimeoutMs' must be a whole number of milliseconds ≥ 0; got ${String(busyTimeoutMs)}. Omit it for the default of 5000.`,
    );
  }
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new ConfigurationError(
      `${service} option 'synchronous' must be 'normal' or 'full'; got ${JSON.stringify(synchronous)}. Omit it for 'normal'.`,
    );
  }
  if (typeof readonly !== 'boolean') {
    throw new ConfigurationError(
      `${service} option 'readonly' must be true or false; got ${JSON.stringify(readonly)}. Omit it to read and write.`,
    );
  }
  if (readonly && path === ':memory:') {
    throw new ConfigurationError(
      `${service} option 'readonly' cannot be used with path ':memory:': a private in-memory database starts empty and could never be written. Pass the path of an existing file.`,
    );
  }
  return { path, busyTimeoutMs, synchronous, readonly };
}
