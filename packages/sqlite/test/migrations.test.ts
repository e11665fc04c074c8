import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, StorageError, TroupeError, createEvent, textOf } from '@troupe/core';
import { SCHEMA_VERSION, SchemaVersionError, SqliteSessionService } from '../src/index.js';
import { MIGRATIONS, migrate, type Migration } from '../src/schema.js';
import { useTempDb } from './helpers.js';

const tempDb = useTempDb();

function versions(path: string): number[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], { version: number }>('SELECT version FROM schema_version ORDER BY version')
      .all()
      .map((r) => r.version);
  } finally {
    db.close();
  }
}

describe('SqliteSessionService schema', () => {
  it('a fresh file gets every migration, recorded in schema_version, and WAL mode', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    await service.close();
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    expect(versions(path)).toEqual(MIGRATIONS.map((m) => m.version));
    const db = new Database(path, { readonly: true });
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    // sqlite_sequence keeps the last seq of runs (AUTOINCREMENT).
    expect(tables).toEqual([
      'app_state',
      'events',
      'runs',
      'schema_version',
      'sessions',
      'sqlite_sequence',
      'user_state',
    ]);
  });

  it('re-opening a current file applies nothing and keeps its data', async () => {
    const path = tempDb();
    const first = new SqliteSessionService({ path });
    const session = await first.createSession({ appName: 'app', userId: 'u', state: { kept: true } });
    await first.close();

    const again = new SqliteSessionService({ path });
    expect(versions(path)).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await again.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.state).toEqual({
      kept: true,
    });
    await again.close();
  });

  it('a file written at schema version 1 (before leases) is migrated on open and keeps its sessions, events and state', async () => {
    const path = tempDb();
    const v1 = new Database(path);
    v1.exec(readFileSync(new URL('./fixtures/schema-v1.sql', import.meta.url), 'utf8'));
    v1.close();
    expect(versions(path)).toEqual([1]);

    const service = new SqliteSessionService({ path });
    expect(versions(path)).toEqual([1, 2, 3]);
    const key = { appName: 'travel', userId: 'alice' };
    const trip = (await service.getSession({ ...key, sessionId: 'trip-1' }))!;
    expect(trip.state).toEqual({ topic: 'paris', booked: true, 'user:lang': 'fr', 'app:flag': true });
    expect(trip.events.map((e) => [e.id, textOf(e)])).toEqual([
      ['e1', 'Book a flight to Paris'],
      ['e2', 'Booked.'],
    ]);
    expect(trip.version).toBe(2);
    expect((await service.listSessions(key)).sessions.map((s) => s.id)).toEqual(['trip-1', 'trip-2']);

    // The migrated rows start with a free lease and work like new ones.
    const lease = await service.leaseSession({ ...key, sessionId: 'trip-1', owner: 'after-upgrade', ttlMs: 30_000 });
    expect(lease).toMatchObject({ owner: 'after-upgrade', epoch: 1 });
    await service.appendEvent({
      session: trip,
      event: createEvent({ author: 'planner', actions: { stateDelta: { hotel: 'yes' } } }),
      lease,
    });
    expect((await service.getSession({ ...key, sessionId: 'trip-1' }))!.version).toBe(3);
    await service.close();
  });

  it('a file at schema version 2 (before run records) gets the runs table on open; its sessions take runs, and deleting one deletes them', async () => {
    const path = tempDb();
    const v2 = new Database(path);
    migrate(v2, 'v2 file', MIGRATIONS.slice(0, 2));
    v2.prepare(
      "INSERT INTO sessions (app_name, user_id, id, state_format, state, version, last_update_time) VALUES ('app', 'u', 's1', 1, '{\"n\":1}', 0, 1000)",
    ).run();
    v2.close();

    const service = new SqliteSessionService({ path });
    expect(versions(path)).toEqual([1, 2, 3]);
    const key = { appName: 'app', userId: 'u', sessionId: 's1' };
    expect((await service.getSession(key))!.state).toEqual({ n: 1 });
    const run = await service.createRun({ ...key, runId: 'r1', request: { newMessage: 'hi' }, exclusive: true });
    expect(await service.getRun('r1')).toEqual(run);
    await expect(service.createRun({ ...key, runId: 'r2', request: {}, exclusive: true })).rejects.toMatchObject({
      code: 'SESSION_BUSY',
    });
    await service.deleteSession(key);
    expect(await service.listRuns({})).toEqual([]);
    await service.close();

    const db = new Database(path, { readonly: true });
    const indexes = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL ORDER BY name",
      )
      .all();
    db.close();
    expect(indexes.map((i) => i.name)).toEqual(['runs_session', 'runs_status']);
  });

  it('a current file opens with reads alone; an older one opened read-only fails, saying it needs migrating', async () => {
    const current = tempDb();
    await new SqliteSessionService({ path: current }).close();
    const reader = new SqliteSessionService({ path: current, readonly: true });
    expect((await reader.listSessions({ appName: 'a', userId: 'u' })).sessions).toEqual([]);
    await reader.close();

    const older = tempDb();
    const v1 = new Database(older);
    v1.exec(readFileSync(new URL('./fixtures/schema-v1.sql', import.meta.url), 'utf8'));
    v1.close();
    let error: unknown;
    try {
      new SqliteSessionService({ path: older, readonly: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toContain(
      `could not bring its schema to version ${SCHEMA_VERSION}: the database is read-only`,
    );
    expect((error as Error).message).toContain('opened with readonly: true; open it without that option');
    expect(versions(older)).toEqual([1]);
  });

  it('a file with a newer schema fails at open, naming both versions, and is left untouched', () => {
    const path = tempDb();
    const newer = SCHEMA_VERSION + 5;
    const db = new Database(path);
    db.exec(
      'CREATE TABLE schema_version (version INTEGER NOT NULL PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    db.prepare('INSERT INTO schema_version VALUES (?, ?, ?)').run(newer, 'from the future', Date.now());
    db.close();

    let error: unknown;
    try {
      new SqliteSessionService({ path });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaVersionError);
    expect(error).toBeInstanceOf(TroupeError);
    const message = (error as Error).message;
    expect(message).toContain(`schema version ${newer}`);
    expect(message).toContain(`versions up to ${SCHEMA_VERSION}`);
    expect(message).toContain(path);
    expect(message).toMatch(/upgrade @troupe\/sqlite/);
    expect(error).toMatchObject({ code: 'SCHEMA_VERSION', found: newer, supported: SCHEMA_VERSION });
    expect(versions(path)).toEqual([newer]);
    const check = new Database(path, { readonly: true });
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'sessions'").get()).toEqual({ n: 0 });
    check.close();
  });

  it('migrations run forward in order, each once: an older file gets only the missing steps', () => {
    const path = tempDb();
    const db = new Database(path);
    const step = (version: number, table: string): Migration => ({
      version,
      description: `add ${table}`,
      sql: `CREATE TABLE ${table} (x INTEGER)`,
    });
    expect(migrate(db, 'test db', [step(1, 'a')])).toEqual([1]);
    expect(migrate(db, 'test db', [step(1, 'a')])).toEqual([]);
    expect(migrate(db, 'test db', [step(1, 'a'), step(2, 'b'), step(3, 'c')])).toEqual([2, 3]);
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE name IN ('a', 'b', 'c') ORDER BY name")
      .all();
    expect(tables.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(() => migrate(db, 'test db', [step(1, 'a')])).toThrow(
      /schema version 3, but this @troupe\/sqlite knows versions up to 1/,
    );
    db.close();
  });

  it('a failing step rolls back the whole migration', () => {
    const db = new Database(tempDb());
    const good: Migration = { version: 1, description: 'good', sql: 'CREATE TABLE good (x INTEGER)' };
    const bad: Migration = { version: 2, description: 'bad', sql: 'CREATE TABLE broken (' };
    expect(() => migrate(db, 'test db', [good, bad])).toThrow();
    expect(
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('good', 'schema_version')").get(),
    ).toEqual({ n: 0 });
    db.close();
  });

  it('a migration list with a gap is refused', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, 'test db', [{ version: 2, description: 'x', sql: 'SELECT 1' }])).toThrow(
      ConfigurationError,
    );
    db.close();
  });
});

describe('SqliteSessionService options', () => {
  it.each([
    [{ path: '' }, /'path' must be a non-empty file path; got ""/],
    [{ path: 'x.db', readonly: 'yes' as unknown as boolean }, /'readonly' must be true or false; got "yes"/],
    [{ path: ':memory:', readonly: true }, /'readonly' cannot be used with path ':memory:'/],
    [{ path: 'x.db', busyTimeoutMs: -1 }, /'busyTimeoutMs' must be a whole number.*got -1/],
    [{ path: 'x.db', synchronous: 'sometimes' as 'full' }, /'synchronous' must be 'normal' or 'full'; got "sometimes"/],
  ])('rejects %j with the option, the value and the fix', (options, message) => {
    expect(() => new SqliteSessionService(options)).toThrow(ConfigurationError);
    expect(() => new SqliteSessionService(options)).toThrow(message);
  });

  it("':memory:' gives a private database", async () => {
    const service = new SqliteSessionService({ path: ':memory:' });
    const session = await service.createSession({ appName: 'a', userId: 'u' });
    expect(await service.getSession({ appName: 'a', userId: 'u', sessionId: session.id })).toBeDefined();
    await service.close();
  });

  it('a closed service says so and how to fix it; closing twice is harmless', async () => {
    const service = new SqliteSessionService({ path: tempDb() });
    await service.close();
    await service.close();
    await expect(service.listSessions({ appName: 'a', userId: 'u' })).rejects.toThrow(
      /is closed\. Create a new SqliteSessionService/,
    );
  });
});
