import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StorageError } from '@troupe/core';
import { storageErrorFor, type StorageFailure } from '../src/storage-errors.js';

const failure: StorageFailure = {
  path: '/srv/app/sessions.db',
  doing: "append event 'e1' to session 's1'",
  writes: true,
  busyTimeoutMs: 5000,
  readonly: false,
};
const sqliteError = (code: string, message = 'what SQLite says') => new Database.SqliteError(message, code);

describe('storageErrorFor', () => {
  it.each([
    ['SQLITE_READONLY', 'the database is read-only'],
    ['SQLITE_READONLY_DBMOVED', 'the database is read-only'],
    [
      'SQLITE_READONLY_DIRECTORY',
      "its folder '/srv/app' is read-only, and SQLite needs to create 'sessions.db-wal' and 'sessions.db-shm'",
    ],
    ['SQLITE_FULL', 'the disk holding it is full'],
    ['SQLITE_IOERR', 'the operating system reported an I/O error'],
    ['SQLITE_IOERR_FSYNC', 'the operating system reported an I/O error'],
    ['SQLITE_CANTOPEN', 'the file cannot be opened'],
    ['SQLITE_BUSY', "another connection held the file's lock for longer than busyTimeoutMs (5000 ms)"],
    ['SQLITE_BUSY_SNAPSHOT', "another connection held the file's lock"],
    ['SQLITE_CORRUPT', 'the file is damaged or is not an SQLite database'],
    ['SQLITE_NOTADB', 'the file is damaged or is not an SQLite database'],
  ])(
    '%s is the storage’s fault: a StorageError naming the file, the operation, what happened and the fix, with the SQLite error as cause',
    (code, happened) => {
      const cause = sqliteError(code);
      const error = storageErrorFor(cause, failure)!;
      expect(error).toBeInstanceOf(StorageError);
      expect(error.code).toBe('STORAGE');
      expect(error.cause).toBe(cause);
      expect(error.message).toContain(
        `The SQLite session store '/srv/app/sessions.db' could not append event 'e1' to session 's1': ${happened}`,
      );
      expect(error.message).toContain(`(${code}: what SQLite says). Nothing was stored. `);
    },
  );

  it.each(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_ERROR', 'SQLITE_MISMATCH', 'SQLITE_RANGE'])(
    '%s is a logic error and stays as it is',
    (code) => {
      expect(storageErrorFor(sqliteError(code), failure)).toBeUndefined();
    },
  );

  it('leaves errors that do not come from SQLite alone', () => {
    expect(storageErrorFor(new TypeError('The database connection is not open'), failure)).toBeUndefined();
    expect(storageErrorFor('a string', failure)).toBeUndefined();
  });

  it('says nothing was stored only for writes, and names readonly: true when the service was opened with it', () => {
    const read = storageErrorFor(sqliteError('SQLITE_IOERR_READ'), {
      ...failure,
      doing: "read session 's1'",
      writes: false,
    })!;
    expect(read.message).not.toContain('Nothing was stored');
    const readonly = storageErrorFor(sqliteError('SQLITE_READONLY'), { ...failure, readonly: true })!;
    expect(readonly.message).toContain('It was opened with readonly: true; open it without that option to write.');
  });
});

describe('which store failed', () => {
  it.each(['artifact store', 'memory store'] as const)('the %s names itself, not the session store', (store) => {
    const error = storageErrorFor(sqliteError('SQLITE_FULL'), { ...failure, doing: "save artifact 'a.png'", store })!;
    expect(error.message).toContain(
      `The SQLite ${store} '/srv/app/sessions.db' could not save artifact 'a.png': the disk holding it is full`,
    );
  });
});
