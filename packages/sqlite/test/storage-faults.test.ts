import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SessionExistsError, createEvent, textOf, type Event } from '@troupe/core';
import {
  SCHEMA_VERSION,
  SqliteArtifactService,
  SqliteMemoryService,
  SqliteSessionService,
  StorageError,
} from '../src/index.js';
import { connectionOf, useTempDb } from './helpers.js';

const tempDb = useTempDb();
const key = { appName: 'app', userId: 'alice' };
const text = (value: string) => ({ role: 'model' as const, parts: [{ text: value }] });

/** The error `work` rejects with (failing the test if it resolves). */
async function failure(work: Promise<unknown>): Promise<StorageError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

function failureOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

const sqliteCode = (error: Error): string => (error.cause as { code: string }).code;

describe('SqliteSessionService storage faults', () => {
  it('a full disk: the append fails with a StorageError, stores nothing (not even its user: and app: keys), reads go on, and writes work once there is room', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const session = await service.createSession({ ...key, state: { n: 0 } });
    const db = connectionOf(service);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    const big: Event = createEvent({
      author: 'writer',
      content: text('x'.repeat(200_000)),
      actions: { stateDelta: { n: 1, 'user:seen': true, 'app:hits': 1 } },
    });
    const error = await failure(service.appendEvent({ session, event: big }));
    expect(error.code).toBe('STORAGE');
    expect(sqliteCode(error)).toBe('SQLITE_FULL');
    expect(error.message).toBe(
      `The SQLite session store '${path}' could not append event '${big.id}' to session '${session.id}': the disk holding it is full (SQLITE_FULL: database or disk is full). Nothing was stored. Free space on that disk, or delete old sessions; reading still works meanwhile.`,
    );
    expect(session).toMatchObject({ version: 0, events: [], state: { n: 0 } });
    const stored = (await service.getSession({ ...key, sessionId: session.id }))!;
    expect(stored).toMatchObject({ version: 0, events: [], state: { n: 0 } });
    expect((await service.createSession({ ...key, sessionId: 'other' })).state).toEqual({});
    await expect(service.checkHealth()).resolves.toBeUndefined();
    await failure(service.createSession({ ...key, state: { blob: 'y'.repeat(200_000) } }));

    db.pragma('max_page_count = 1073741823');
    await service.appendEvent({ session, event: big });
    const after = (await service.getSession({ ...key, sessionId: session.id }))!;
    expect(after.state).toEqual({ n: 1, 'user:seen': true, 'app:hits': 1 });
    expect(after.events.map((e) => e.id)).toEqual([big.id]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    await service.close();
  });

  it('a file opened with readonly: true reads and lists; every write fails with a StorageError naming the option, and stores nothing', async () => {
    const path = tempDb();
    const writer = new SqliteSessionService({ path });
    const session = await writer.createSession({ ...key, state: { n: 1 } });
    await writer.appendEvent({ session, event: createEvent({ author: 'writer', content: text('hello') }) });

    const reader = new SqliteSessionService({ path, readonly: true });
    const copy = (await reader.getSession({ ...key, sessionId: session.id }))!;
    expect(copy.events.map(textOf)).toEqual(['hello']);
    await expect(reader.checkHealth()).resolves.toBeUndefined();

    const writes: [string, () => Promise<unknown>][] = [
      ['create session', () => reader.createSession({ ...key, sessionId: 'new' })],
      [
        `append event`,
        () =>
          reader.appendEvent({
            session: copy,
            event: createEvent({ author: 'reader', actions: { stateDelta: { n: 2 } } }),
          }),
      ],
      [`delete session '${session.id}'`, () => reader.deleteSession({ ...key, sessionId: session.id })],
      [
        `lease session '${session.id}' for 'r'`,
        () => reader.leaseSession({ ...key, sessionId: session.id, owner: 'r', ttlMs: 1000 }),
      ],
    ];
    for (const [doing, write] of writes) {
      const error = await failure(write());
      expect(sqliteCode(error)).toBe('SQLITE_READONLY');
      expect(error.message).toContain(`The SQLite session store '${path}' could not ${doing}`);
      expect(error.message).toContain(
        'the database is read-only (SQLITE_READONLY: attempt to write a readonly database). Nothing was stored.',
      );
      expect(error.message).toContain('It was opened with readonly: true; open it without that option to write.');
    }
    expect(copy).toMatchObject({ version: 1, state: { n: 1 } });

    const seen = (await writer.getSession({ ...key, sessionId: session.id }))!;
    expect(seen).toMatchObject({ version: 1, state: { n: 1 } });
    expect((await writer.listSessions(key)).sessions.map((s) => s.id)).toEqual([session.id]);
    // The reader follows what the writer stores.
    await writer.appendEvent({ session: seen, event: createEvent({ author: 'writer', content: text('again') }) });
    expect((await reader.getSession({ ...key, sessionId: session.id }))!.events.map(textOf)).toEqual([
      'hello',
      'again',
    ]);
    await reader.close();
    await writer.close();
  });

  it('a write lock held past busyTimeoutMs: the write fails with a StorageError saying so, reads go on, and the same write works once the lock is free', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path, busyTimeoutMs: 50 });
    const session = await service.createSession(key);
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');

    const event = createEvent({ author: 'writer', content: text('waited'), actions: { stateDelta: { n: 1 } } });
    const started = Date.now();
    const error = await failure(service.appendEvent({ session, event }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
    expect(sqliteCode(error)).toMatch(/^SQLITE_BUSY/);
    expect(error.message).toContain(
      `could not append event '${event.id}' to session '${session.id}': another connection held the file's lock for longer than busyTimeoutMs (50 ms)`,
    );
    expect(error.message).toContain('Nothing was stored. Retry; if it keeps happening, raise busyTimeoutMs');
    await failure(service.leaseSession({ ...key, sessionId: session.id, owner: 'a', ttlMs: 1000 }));
    expect((await service.getSession({ ...key, sessionId: session.id }))!.version).toBe(0);

    other.exec('ROLLBACK');
    other.close();
    await service.appendEvent({ session, event });
    expect((await service.getSession({ ...key, sessionId: session.id }))!.state).toEqual({ n: 1 });
    await service.close();
  });

  it('a path that cannot be opened fails at construction with a StorageError naming it', () => {
    const dir = dirname(tempDb());
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const notAFile = failureOf(() => new SqliteSessionService({ path: folder })) as StorageError;
    expect(notAFile).toBeInstanceOf(StorageError);
    expect(sqliteCode(notAFile)).toBe('SQLITE_CANTOPEN');
    expect(notAFile.message).toContain(
      `The SQLite session store '${folder}' could not open it: the file cannot be opened`,
    );
    expect(notAFile.message).toContain('Check that the path names a file, not a folder');

    const missing = failureOf(() => new SqliteSessionService({ path: join(dir, 'missing.db'), readonly: true }));
    expect(missing).toBeInstanceOf(StorageError);
    expect(sqliteCode(missing as StorageError)).toBe('SQLITE_CANTOPEN');

    const file = join(dir, 'plain-file');
    writeFileSync(file, 'not a folder');
    const underAFile = failureOf(() => new SqliteSessionService({ path: join(file, 'sessions.db') })) as StorageError;
    expect(underAFile).toBeInstanceOf(StorageError);
    // A file is where the folder should be: mkdir says EEXIST (or ENOTDIR on some systems).
    expect(underAFile.message).toMatch(/its folder '.*plain-file' could not be created \((EEXIST|ENOTDIR): /);
    expect(underAFile.cause).toMatchObject({ code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) });
  });

  it('the artifact and memory stores name themselves when their file or folder cannot be opened', () => {
    const dir = dirname(tempDb());
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'not a folder');
    for (const [store, open] of [
      ['artifact store', (path: string) => new SqliteArtifactService({ path })],
      ['memory store', (path: string) => new SqliteMemoryService({ path })],
    ] as const) {
      const notAFile = failureOf(() => open(folder)) as StorageError;
      expect(notAFile).toBeInstanceOf(StorageError);
      expect(notAFile.message).toContain(`The SQLite ${store} '${folder}' could not open it`);
      const underAFile = failureOf(() => open(join(file, 'x.db'))) as StorageError;
      expect(underAFile.message).toContain(`The SQLite ${store} '${join(file, 'x.db')}' could not be opened`);
    }
  });

  it('a file that is not an SQLite database fails at construction with a StorageError', () => {
    const path = tempDb();
    writeFileSync(path, 'these are notes, not a database '.repeat(200));
    const error = failureOf(() => new SqliteSessionService({ path })) as StorageError;
    expect(error).toBeInstanceOf(StorageError);
    expect(sqliteCode(error)).toBe('SQLITE_NOTADB');
    expect(error.message).toContain('the file is damaged or is not an SQLite database');
  });

  it('errors that are not the storage’s fault stay as they are', async () => {
    const service = new SqliteSessionService({ path: tempDb() });
    const session = await service.createSession({ ...key, sessionId: 's' });
    await expect(service.createSession({ ...key, sessionId: 's' })).rejects.toBeInstanceOf(SessionExistsError);
    const notJson = createEvent({ author: 'w', actions: { stateDelta: { big: 10n } } });
    const error = await service.appendEvent({ session, event: notJson }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StorageError);
    await service.close();
  });
});

describe('SqliteSessionService.checkHealth', () => {
  it('resolves while the file answers', async () => {
    const service = new SqliteSessionService({ path: tempDb() });
    await expect(service.checkHealth()).resolves.toBeUndefined();
    await service.close();
  });

  it('rejects with a StorageError once the service is closed', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    await service.close();
    const error = await failure(service.checkHealth());
    expect(error.message).toBe(
      `The SQLite session store '${path}' is closed, so it cannot serve requests. Create a new SqliteSessionService to open the file again.`,
    );
  });

  it('rejects with a StorageError naming both versions when another process migrated the file to a newer release', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const newer = new Database(path);
    newer
      .prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)')
      .run(SCHEMA_VERSION + 1, 'from a newer release', Date.now());
    newer.close();
    const error = await failure(service.checkHealth());
    expect(error.message).toContain(`The SQLite session store '${path}' failed its health check`);
    expect(error.message).toContain(
      `has schema version ${SCHEMA_VERSION + 1}, but this @troupe/sqlite knows versions up to ${SCHEMA_VERSION}`,
    );
    expect(error.cause).toMatchObject({ code: 'SCHEMA_VERSION' });
    await service.close();
  });
});
