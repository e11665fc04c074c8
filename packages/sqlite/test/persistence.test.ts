import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createEvent } from '@troupe/core';
import { SchemaVersionError, SqliteSessionService, VALUE_FORMAT } from '../src/index.js';
import { useTempDb } from './helpers.js';
import { fullEvent, richState } from '@troupe/core/testing/contracts';

const tempDb = useTempDb();
const key = { appName: 'app', userId: 'alice' };

describe('SqliteSessionService persistence', () => {
  it('round trip: state and events saved, closed and loaded by a new service are equal to what was saved', async () => {
    const path = tempDb();
    const writer = new SqliteSessionService({ path });
    const session = await writer.createSession({ ...key, state: richState });
    const event = fullEvent();
    await writer.appendEvent({ session, event: structuredClone(event) });
    const saved = await writer.getSession({ ...key, sessionId: session.id });
    await writer.close();

    const reader = new SqliteSessionService({ path });
    const loaded = await reader.getSession({ ...key, sessionId: session.id });
    await reader.close();

    expect(loaded).toEqual(saved);
    expect(loaded!.state).toEqual({ ...richState, count: 1, 'user:seen': true });
    expect(loaded!.events).toEqual([event]);
    expect(loaded!.version).toBe(1);
    expect(loaded!.lastUpdateTime).toBe(saved!.lastUpdateTime);
    expect(({} as { polluted?: string }).polluted).toBeUndefined();
  });

  it('every stored value carries the value format it was written in', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const session = await service.createSession({ ...key, state: { a: 1, 'user:b': 2, 'app:c': 3 } });
    await service.appendEvent({ session, event: fullEvent() });
    await service.close();

    const db = new Database(path, { readonly: true });
    const formats = [
      'SELECT state_format AS f FROM sessions',
      'SELECT format AS f FROM events',
      'SELECT format AS f FROM app_state',
      'SELECT format AS f FROM user_state',
    ].map((sql) =>
      db
        .prepare<[], { f: number }>(sql)
        .all()
        .map((r) => r.f),
    );
    db.close();
    expect(formats).toEqual([[VALUE_FORMAT], [VALUE_FORMAT], [VALUE_FORMAT], [VALUE_FORMAT, VALUE_FORMAT]]);
  });

  it('a value in a format newer than this code reads fails with both formats named', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const session = await service.createSession(key);
    await service.appendEvent({ session, event: fullEvent() });
    await service.close();
    const db = new Database(path);
    db.prepare('UPDATE events SET format = ?').run(VALUE_FORMAT + 1);
    db.close();

    const reader = new SqliteSessionService({ path });
    const read = reader.getSession({ ...key, sessionId: session.id });
    await expect(read).rejects.toBeInstanceOf(SchemaVersionError);
    await expect(reader.getSession({ ...key, sessionId: session.id })).rejects.toThrow(
      new RegExp(`value format ${VALUE_FORMAT + 1}, but this @troupe/sqlite reads only format ${VALUE_FORMAT}`),
    );
    await reader.close();
  });

  it('sessions, events and scoped state survive close and reopen, and appends continue from the stored version', async () => {
    const path = tempDb();
    const first = new SqliteSessionService({ path });
    const a = await first.createSession({ ...key, state: { n: 0 } });
    for (let i = 1; i <= 3; i++)
      await first.appendEvent({
        session: a,
        event: createEvent({ author: 'A', actions: { stateDelta: { n: i, 'app:total': i } } }),
      });
    const b = await first.createSession({ ...key, userId: 'bob' });
    await first.close();

    const second = new SqliteSessionService({ path });
    const reloaded = (await second.getSession({ ...key, sessionId: a.id }))!;
    expect(reloaded.version).toBe(3);
    expect(reloaded.state).toEqual({ n: 3, 'app:total': 3 });
    expect((await second.getSession({ ...key, userId: 'bob', sessionId: b.id }))!.state).toEqual({ 'app:total': 3 });
    await second.appendEvent({
      session: reloaded,
      event: createEvent({ author: 'A', actions: { stateDelta: { n: 4 } } }),
    });
    await expect(second.appendEvent({ session: a, event: createEvent({ author: 'A' }) })).rejects.toThrow(
      /version 3, the store at 4/,
    );
    await second.close();

    const third = new SqliteSessionService({ path });
    const last = (await third.getSession({ ...key, sessionId: a.id }))!;
    expect(last.events.map((e) => e.actions.stateDelta.n)).toEqual([1, 2, 3, 4]);
    expect((await third.listSessions(key)).sessions.map((s) => s.id)).toEqual([a.id]);
    await third.close();
  });

  it('a state value of undefined removes the key in every scope', async () => {
    const service = new SqliteSessionService({ path: tempDb() });
    const session = await service.createSession({ ...key, state: { a: 1, 'user:b': 2, 'app:c': 3, keep: true } });
    await service.appendEvent({
      session,
      event: createEvent({
        author: 'A',
        actions: { stateDelta: { a: undefined, 'user:b': undefined, 'app:c': undefined } },
      }),
    });
    expect((await service.getSession({ ...key, sessionId: session.id }))!.state).toEqual({ keep: true });
    await service.close();
  });

  it('a value that is not JSON data is refused with its key and nothing is stored', async () => {
    const service = new SqliteSessionService({ path: tempDb() });
    const session = await service.createSession(key);
    const bad = createEvent({ author: 'A', actions: { stateDelta: { ok: 1, 'user:big': 10n } } });
    const append = service.appendEvent({ session, event: bad });
    await expect(append).rejects.toBeInstanceOf(ConfigurationError);
    await expect(service.appendEvent({ session, event: bad })).rejects.toThrow(/BigInt.*Store plain JSON data/);
    const got = (await service.getSession({ ...key, sessionId: session.id }))!;
    expect(got.events).toEqual([]);
    expect(got.state).toEqual({});
    expect(session.version).toBe(0);
    await service.close();
  });

  it('creates the folder of a new database file', async () => {
    const path = tempDb().replace(/sessions\.db$/, 'nested/deeper/sessions.db');
    const service = new SqliteSessionService({ path });
    await service.createSession(key);
    expect((await service.listSessions(key)).sessions).toHaveLength(1);
    await service.close();
  });
});
