import type Database from 'better-sqlite3';

/** A `sessions` row without its state: what an append reads, lease epoch included. */
export interface SessionHeadRow {
  pk: number;
  version: number;
  last_update_time: number;
  lease_epoch: number;
}

/** The lease columns of a `sessions` row. */
export interface LeaseRow {
  lease_owner: string;
  lease_epoch: number;
  lease_expires_at: number;
}

/** A `sessions` row as sessions are read (the lease is not part of a session). */
export interface SessionRow extends Omit<SessionHeadRow, 'lease_epoch'> {
  id: string;
  state_format: number;
  state: string;
}

/** A stored value: an event, or one `app:`/`user:` key. */
export interface ValueRow {
  format: number;
  data: string;
}

/** One `app:` or `user:` key and its stored value. */
export interface ScopedValueRow {
  key: string;
  format: number;
  value: string;
}

/** The part of a better-sqlite3 statement the service uses, typed by its parameters and row. */
export interface Statement<P extends unknown[], R = unknown> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): Database.RunResult;
}

/** Every statement the service runs, prepared once per connection. */
export type Statements = ReturnType<typeof prepareStatements>;

/** Prepares {@link Statements} on `db`, whose schema must be current. */
export function prepareStatements(db: Database.Database) {
  const prepare = <P extends unknown[], R = unknown>(sql: string): Statement<P, R> => db.prepare<P, R>(sql);
  const sessionColumns = 'pk, id, state_format, state, version, last_update_time';
  return {
    selectSession: prepare<[string, string, string], SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?`,
    ),
    selectSessionHead: prepare<[string, string, string], SessionHeadRow>(
      'SELECT pk, version, last_update_time, lease_epoch FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?',
    ),
    selectSessionState: prepare<[number], { state_format: number; state: string }>(
      'SELECT state_format, state FROM sessions WHERE pk = ?',
    ),
    listSessions: prepare<[string, string], SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE app_name = ? AND user_id = ? ORDER BY pk`,
    ),
    insertSession: prepare<[string, string, string, number, string, number, number]>(
      'INSERT INTO sessions (app_name, user_id, id, state_format, state, version, last_update_time) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    updateSessionHead: prepare<[number, number, number]>(
      'UPDATE sessions SET version = ?, last_update_time = ? WHERE pk = ?',
    ),
    updateSessionHeadAndState: prepare<[number, number, number, string, number]>(
      'UPDATE sessions SET version = ?, last_update_time = ?, state_format = ?, state = ? WHERE pk = ?',
    ),
    deleteSession: prepare<[number]>('DELETE FROM sessions WHERE pk = ?'),

    // Each lease change is one UPDATE whose WHERE holds the condition, so two connections (or
    // processes) racing for a lease are serialised by SQLite's write lock and exactly one wins.
    // Parameters: owner, expiresAt, appName, userId, sessionId, now, owner.
    takeLease: prepare<[string, number, string, string, string, number, string], LeaseRow>(
      `UPDATE sessions SET lease_owner = ?, lease_epoch = lease_epoch + 1, lease_expires_at = ?
       WHERE app_name = ? AND user_id = ? AND id = ? AND (lease_expires_at <= ? OR lease_owner = ?)
       RETURNING lease_owner, lease_epoch, lease_expires_at`,
    ),
    // Parameters: expiresAt, appName, userId, sessionId, epoch.
    renewLease: prepare<[number, string, string, string, number], LeaseRow>(
      `UPDATE sessions SET lease_expires_at = ? WHERE app_name = ? AND user_id = ? AND id = ? AND lease_epoch = ?
       RETURNING lease_owner, lease_epoch, lease_expires_at`,
    ),
    releaseLease: prepare<[string, string, string, number]>(
      'UPDATE sessions SET lease_expires_at = 0 WHERE app_name = ? AND user_id = ? AND id = ? AND lease_epoch = ?',
    ),
    selectLease: prepare<[string, string, string], LeaseRow>(
      'SELECT lease_owner, lease_epoch, lease_expires_at FROM sessions WHERE app_name = ? AND user_id = ? AND id = ?',
    ),

    // Newest first, so LIMIT picks the most recent; a LIMIT of -1 means no limit in SQLite. An
    // event's seq is the version its append made, so `seq > ?` is what came after a version (0: all),
    // read through the (session_pk, seq) primary key.
    selectEventsNewestFirst: prepare<[number, number, number, number], ValueRow>(
      'SELECT format, data FROM events WHERE session_pk = ? AND seq > ? AND timestamp >= ? ORDER BY seq DESC LIMIT ?',
    ),
    // The last event at or before a version: what an incremental read's caller must hold last.
    selectEventIdAtOrBefore: prepare<[number, number], { id: string }>(
      'SELECT id FROM events WHERE session_pk = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
    ),
    selectEventById: prepare<[number, string], ValueRow>(
      'SELECT format, data FROM events WHERE session_pk = ? AND id = ?',
    ),
    insertEvent: prepare<[number, number, string, number, number, string]>(
      'INSERT INTO events (session_pk, seq, id, timestamp, format, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    deleteEvents: prepare<[number]>('DELETE FROM events WHERE session_pk = ?'),

    selectAppState: prepare<[string], ScopedValueRow>('SELECT key, format, value FROM app_state WHERE app_name = ?'),
    upsertAppState: prepare<[string, string, number, string]>(
      'INSERT INTO app_state (app_name, key, format, value) VALUES (?, ?, ?, ?) ON CONFLICT (app_name, key) DO UPDATE SET format = excluded.format, value = excluded.value',
    ),
    deleteAppState: prepare<[string, string]>('DELETE FROM app_state WHERE app_name = ? AND key = ?'),
    selectUserState: prepare<[string, string], ScopedValueRow>(
      'SELECT key, format, value FROM user_state WHERE app_name = ? AND user_id = ?',
    ),
    upsertUserState: prepare<[string, string, string, number, string]>(
      'INSERT INTO user_state (app_name, user_id, key, format, value) VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_name, user_id, key) DO UPDATE SET format = excluded.format, value = excluded.value',
    ),
    deleteUserState: prepare<[string, string, string]>(
      'DELETE FROM user_state WHERE app_name = ? AND user_id = ? AND key = ?',
    ),
  };
}
