import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StorageError } from '@troupe/core';

/** The service a failure happened in, for the message of the {@link StorageError} that reports it. */
export interface StorageSite {
  /** The database file, as the user gave it. */
  path: string;
  /** The service's busy timeout, named when another connection held the lock too long. */
  busyTimeoutMs: number;
  /** Whether the service was opened with `readonly: true`, which the remedy for a read-only file names. */
  readonly: boolean;
  /** Which store failed, for the message. @default 'session store' */
  store?: 'session store' | 'artifact store' | 'memory store';
}

/** A failed operation: where, and what it was doing. */
export interface StorageFailure extends StorageSite {
  /** What the service was doing, as a verb phrase: `append event 'e1' to session 's1'`. */
  doing: string;
  /** Whether the operation writes: then the message says that nothing was stored. */
  writes: boolean;
}

/**
 * Runs one operation, rethrowing a failure that is the storage's fault as its {@link StorageError}
 * (see {@link storageErrorFor}); `doing` is only called then, so the hot path builds no message.
 */
export function guarded<T>(site: StorageSite, writes: boolean, doing: () => string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw storageErrorFor(error, { ...site, doing: doing(), writes }) ?? error;
  }
}

/**
 * The {@link StorageError} for an SQLite error that is the storage's fault (a read-only or full
 * disk, an I/O error, a file that cannot be opened, a lock held too long, a damaged file), with the
 * SQLite error as its `cause`; undefined for anything else. Logic errors (a constraint, SQL the
 * code got wrong) are not the storage's fault, so they stay as they are.
 */
export function storageErrorFor(error: unknown, failure: StorageFailure): StorageError | undefined {
  if (!(error instanceof Database.SqliteError)) return undefined;
  const what = describe(error, failure);
  if (!what) return undefined;
  const stored = failure.writes ? ' Nothing was stored.' : '';
  return new StorageError(
    `The SQLite ${failure.store ?? 'session store'} '${failure.path}' could not ${failure.doing}: ${what.happened}.${stored} ${what.fix}`,
    { cause: error },
  );
}

/**
 * The {@link StorageError} for a folder that could not be created for the file (a Node.js file
 * system error such as `EACCES`, `EROFS` or `ENOTDIR`).
 */
export function folderError(error: unknown, path: string, store: StorageSite['store'] = 'session store'): StorageError {
  // Node.js messages start with the code already: "EACCES: permission denied, mkdir '/srv/x'".
  const detail = error instanceof Error ? error.message : String(error);
  return new StorageError(
    `The SQLite ${store} '${path}' could not be opened: its folder '${dirname(path)}' could not be created (${detail}). Create the folder, or choose a path in a folder this process may write.`,
    { cause: error },
  );
}

function describe(
  error: InstanceType<typeof Database.SqliteError>,
  failure: StorageFailure,
): { happened: string; fix: string } | undefined {
  const code = error.code;
  const detail = `${code}: ${error.message}`;
  if (code === 'SQLITE_READONLY_DIRECTORY') {
    const file = basename(failure.path);
    return {
      happened: `its folder '${dirname(failure.path)}' is read-only, and SQLite needs to create '${file}-wal' and '${file}-shm' beside the file (${detail})`,
      fix: 'Make the folder writable by this process.',
    };
  }
  if (code.startsWith('SQLITE_READONLY')) {
    const reopen = failure.readonly ? ' It was opened with readonly: true; open it without that option to write.' : '';
    return {
      happened: `the database is read-only (${detail})`,
      fix: `Make the file, its '-wal' and '-shm' companions and their folder writable by this process.${reopen}`,
    };
  }
  if (code === 'SQLITE_FULL') {
    return {
      happened: `the disk holding it is full (${detail})`,
      fix: 'Free space on that disk, or delete old sessions; reading still works meanwhile.',
    };
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return {
      happened: `the operating system reported an I/O error (${detail})`,
      fix: 'Check the disk and file system holding the file (free space, quota, file size limit, a network mount that went away); it may work again once they are back.',
    };
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return {
      happened: `the file cannot be opened (${detail})`,
      fix: 'Check that the path names a file, not a folder, in a folder that exists and that this process may read and write.',
    };
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return {
      happened: `another connection held the file's lock for longer than busyTimeoutMs (${failure.busyTimeoutMs} ms) (${detail})`,
      fix: 'Retry; if it keeps happening, raise busyTimeoutMs or look for a process that keeps a long transaction open on the file.',
    };
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return {
      happened: `the file is damaged or is not an SQLite database (${detail})`,
      fix: 'Restore it from a backup, or point path at another file.',
    };
  }
  return undefined;
}
