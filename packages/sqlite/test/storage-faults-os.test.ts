import { chmodSync, chownSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createEvent } from '@troupe/core';
import { SqliteSessionService } from '../src/index.js';
import { startWorker, unprivileged, useTempDb, type WorkerOptions } from './helpers.js';

// What users hit when the operating system refuses writes, reproduced for real in a worker process:
// file permissions (bind only an ordinary user, so as root the worker runs as `nobody`) and a file
// size limit (`ulimit -f`, which makes write() fail as a full disk or an exhausted quota does).
const tempDb = useTempDb();
const worker = fileURLToPath(new URL('./fixtures/fault-worker.mjs', import.meta.url));
const key = { appName: 'app', userId: 'alice' };

interface Described {
  name: string;
  code: string;
  message: string;
  cause: string | null;
}

const run = (path: string, sessionId: string, mode: string, options: WorkerOptions = {}) =>
  startWorker(worker, [path, key.appName, key.userId, sessionId, mode], options).result as Promise<
    Record<string, unknown>
  >;

/** A file holding one session at version 1, closed (so no -wal or -shm file is left beside it). */
async function storeWithOneSession(): Promise<{ path: string; sessionId: string }> {
  const path = tempDb();
  const service = new SqliteSessionService({ path });
  const session = await service.createSession({ ...key, state: { n: 0 } });
  await service.appendEvent({ session, event: createEvent({ author: 'setup', actions: { stateDelta: { n: 1 } } }) });
  await service.close();
  return { path, sessionId: session.id };
}

/** Hands the folder and file to the worker's user, so only the modes set next restrict it. */
function giveToWorker(path: string): void {
  const { uid, gid } = unprivileged();
  if (uid === undefined || gid === undefined) return;
  chownSync(dirname(path), uid, gid);
  chownSync(path, uid, gid);
}

function storedVersion(path: string, sessionId: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[string], { version: number }>('SELECT version FROM sessions WHERE id = ?').get(sessionId)!
      .version;
  } finally {
    db.close();
  }
}

describe('SqliteSessionService when the operating system refuses writes', () => {
  it('a write-protected file (chmod 444) opens and reads; every write fails with a StorageError and stores nothing', async () => {
    const { path, sessionId } = await storeWithOneSession();
    giveToWorker(path);
    chmodSync(path, 0o444);

    const result = await run(path, sessionId, 'open', unprivileged());
    expect(result).toMatchObject({ openError: null, version: 1, health: null, liveVersion: 1, versionAfter: 1 });
    for (const op of ['append', 'create', 'lease'] as const) {
      const error = result[op] as Described;
      expect(error, op).toMatchObject({ name: 'StorageError', code: 'STORAGE', cause: 'SQLITE_READONLY' });
      expect(error.message).toContain(`The SQLite session store '${path}' could not `);
      expect(error.message).toContain('the database is read-only');
      expect(error.message).toContain('Nothing was stored. Make the file');
    }
    chmodSync(path, 0o644);
    expect(storedVersion(path, sessionId)).toBe(1);
  });

  it('a file in a read-only folder fails to open with a StorageError that names the folder and the -wal and -shm files', async () => {
    const { path, sessionId } = await storeWithOneSession();
    giveToWorker(path);
    chmodSync(dirname(path), 0o555);
    try {
      const result = await run(path, sessionId, 'open', unprivileged());
      const error = result.openError as Described;
      expect(error).toMatchObject({ name: 'StorageError', code: 'STORAGE', cause: 'SQLITE_READONLY_DIRECTORY' });
      expect(error.message).toContain(`its folder '${dirname(path)}' is read-only`);
      expect(error.message).toContain("'sessions.db-wal' and 'sessions.db-shm'");
      expect(error.message).toContain('Make the folder writable by this process.');
    } finally {
      chmodSync(dirname(path), 0o755);
    }
  });

  it('writes past a file size limit fail with a StorageError; the failed append stores nothing and the file stays whole and writable', async () => {
    const { path, sessionId } = await storeWithOneSession();
    const result = await run(path, sessionId, 'fill', { fileSizeBlocks: 400 });
    expect(result.failedAt).toEqual(expect.any(Number));
    const error = result.error as Described;
    expect(error).toMatchObject({ name: 'StorageError', code: 'STORAGE' });
    // A write cut short reads as SQLITE_FULL, one refused outright (EFBIG) as SQLITE_IOERR_WRITE.
    expect(error.cause).toMatch(/^SQLITE_(FULL|IOERR)/);
    expect(error.message).toContain(`The SQLite session store '${path}' could not append event `);
    expect(error.message).toContain('Nothing was stored.');
    // Every append before the failing one is stored, the failing one not at all, and the live copy was left as it was.
    const appended = (result.failedAt as number) - 1;
    expect(appended).toBeGreaterThan(0);
    expect(result).toMatchObject({
      liveVersion: 1 + appended,
      storedVersion: 1 + appended,
      storedEvents: 1 + appended,
      storedN: appended,
    });

    // Without the limit, the same file is intact and takes appends again.
    const db = new Database(path, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const service = new SqliteSessionService({ path });
    const session = (await service.getSession({ ...key, sessionId }))!;
    expect(session.events.map((e) => e.actions.stateDelta.n)).toEqual([
      1,
      ...Array.from({ length: appended }, (_, i) => i + 1),
    ]);
    await service.appendEvent({
      session,
      event: createEvent({ author: 'after', actions: { stateDelta: { n: 'after' } } }),
    });
    expect((await service.getSession({ ...key, sessionId }))!.state).toEqual({ n: 'after', 'user:seen': appended });
    await service.close();
  });
});
