import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConfigurationError } from '@troupe/core';
import { quoteIdentifier } from './schema.js';

/** One statement: sent by name, so each pooled connection parses and plans it once. */
export interface Query {
  name: string;
  text: string;
}

/** The scoped state of a session's app and user, as `[key, format, value]` triples. */
export type ScopedRows = [key: string, format: number, value: unknown][];

/** A `sessions` row with its app's and user's scoped state. */
export interface SessionRow {
  pk: string;
  id: string;
  state_format: number;
  state: Record<string, unknown>;
  version: number;
  last_update_time: number;
  app: ScopedRows;
  usr: ScopedRows;
  /** Only from `selectSessionAfter`: the id of the last event at or before the version asked for. */
  base_event_id?: string | null;
}

/** What an append reads of the session row it locks. */
export interface SessionHeadRow {
  pk: string;
  version: number;
  last_update_time: number;
  /** The epoch of the session's lease (0: never leased), checked against an append's lease. */
  lease_epoch: number;
  /** The stored event with the appended event's id, when it was stored before (else null). */
  event_format: ValueRow['format'] | null;
  event_data: unknown;
}

/** A stored event: its value format and its JSONB, parsed by pg. */
export interface ValueRow {
  format: number;
  data: unknown;
}

/** Every statement the service runs against `schema`. */
export type Queries = ReturnType<typeof buildQueries>;

/** Makes the named statements of `schema`. */
export function queryNamer(schema: string): (name: string, text: string) => Query {
  // Statement names are per connection; the schema's hash keeps two services sharing a pool apart.
  const prefix = `troupe_${createHash('sha256').update(schema).digest('hex').slice(0, 10)}_`;
  return (name, text) => ({ name: prefix + name, text });
}

/**
 * The app and user state a session read returns beside the session's own (`app`, `usr`: rows of
 * [key, format, value]), for the app in $1 and the user in $2 of the schema `s` (quoted).
 */
export function scopedStateColumns(s: string): string {
  return `
    (SELECT COALESCE(jsonb_agg(jsonb_build_array(key, format, value)), '[]'::jsonb) FROM ${s}.app_state WHERE app_name = $1) AS app,
    (SELECT COALESCE(jsonb_agg(jsonb_build_array(key, format, value)), '[]'::jsonb) FROM ${s}.user_state WHERE app_name = $1 AND user_id = $2) AS usr`;
}

/** The named statements of the session store in `schema` (leases have theirs in `leases.ts`). */
export function buildQueries(schema: string) {
  const s = quoteIdentifier(schema);
  const query = queryNamer(schema);
  const scopedColumns = scopedStateColumns(s);
  const sessionColumns = 'pk, id, state_format, state, version, last_update_time';
  // The session's events as [[format, data], ...], oldest first; an event's seq is the version its
  // append made, so `seq > $4` is what came after a version.
  const eventsColumn = `(SELECT COALESCE(jsonb_agg(jsonb_build_array(x.format, x.data) ORDER BY x.seq), '[]'::jsonb)
      FROM (SELECT e.seq, e.format, e.data FROM ${s}.events e
            WHERE e.session_pk = sessions.pk AND e.seq > $4 AND e.timestamp >= $5
            ORDER BY e.seq DESC LIMIT $6) x) AS events`;
  return {
    // A session, its app and user state and its events, in one statement (one snapshot, so the
    // events always match the state and version read): the events after version $4 (0: all), at or
    // after timestamp $5, the newest $6 of them (NULL: all), oldest first.
    selectSession: query(
      'select_session',
      `SELECT ${sessionColumns}, ${scopedColumns}, ${eventsColumn} FROM ${s}.sessions
       WHERE app_name = $1 AND user_id = $2 AND id = $3`,
    ),
    listSessions: query(
      'list_sessions',
      `SELECT ${sessionColumns}, ${scopedColumns} FROM ${s}.sessions WHERE app_name = $1 AND user_id = $2 ORDER BY pk`,
    ),
    // An incremental read: the same, and the id of the last event at or before version $4 (what the
    // caller must hold last).
    selectSessionAfter: query(
      'select_session_after',
      `SELECT ${sessionColumns}, ${scopedColumns}, ${eventsColumn},
         (SELECT e.id FROM ${s}.events e WHERE e.session_pk = sessions.pk AND e.seq <= $4 ORDER BY e.seq DESC LIMIT 1) AS base_event_id
       FROM ${s}.sessions WHERE app_name = $1 AND user_id = $2 AND id = $3`,
    ),
    insertSession: query(
      'insert_session',
      `INSERT INTO ${s}.sessions (app_name, user_id, id, state_format, state, version, last_update_time)
       VALUES ($1, $2, $3, $4, $5::jsonb, 0, $6) ON CONFLICT (app_name, user_id, id) DO NOTHING RETURNING pk`,
    ),
    // A new session without app: or user: keys, and the app and user state it starts with: one
    // statement (no transaction round trips); no row when the id is taken.
    createSession: query(
      'create_session',
      `WITH inserted AS (
         INSERT INTO ${s}.sessions (app_name, user_id, id, state_format, state, version, last_update_time)
         VALUES ($1, $2, $3, $4, $5::jsonb, 0, $6) ON CONFLICT (app_name, user_id, id) DO NOTHING RETURNING pk)
       SELECT inserted.pk, ${scopedColumns} FROM inserted`,
    ),
    selectScoped: query('select_scoped', `SELECT ${scopedColumns}`),
    deleteSession: query(
      'delete_session',
      `DELETE FROM ${s}.sessions WHERE app_name = $1 AND user_id = $2 AND id = $3`,
    ),
    // The session's head, locked, and the stored event with the appended event's id ($4) if there is
    // one (a retried append): one round trip where a head read and an id lookup would take two.
    lockSession: query(
      'lock_session',
      `SELECT s.pk, s.version, s.last_update_time, s.lease_epoch, e.format AS event_format, e.data AS event_data
       FROM ${s}.sessions s LEFT JOIN ${s}.events e ON e.session_pk = s.pk AND e.id = $4
       WHERE s.app_name = $1 AND s.user_id = $2 AND s.id = $3 FOR UPDATE OF s`,
    ),
    // $1 app, $2 user, $3 format of the app values, $4/$5 app keys to set/remove, $6/$7 user keys to
    // set/remove, $8 format of the user values. Keys arrive escaped (codec.ts encodeKey), as stored.
    writeScoped: query(
      'write_scoped',
      `WITH app_set AS (
         INSERT INTO ${s}.app_state (app_name, key, format, value) SELECT $1, key, $3, value FROM jsonb_each($4::jsonb)
         ON CONFLICT (app_name, key) DO UPDATE SET format = EXCLUDED.format, value = EXCLUDED.value),
       app_remove AS (DELETE FROM ${s}.app_state WHERE app_name = $1 AND key = ANY($5::text[])),
       user_set AS (
         INSERT INTO ${s}.user_state (app_name, user_id, key, format, value) SELECT $1, $2, key, $8, value FROM jsonb_each($6::jsonb)
         ON CONFLICT (app_name, user_id, key) DO UPDATE SET format = EXCLUDED.format, value = EXCLUDED.value),
       user_remove AS (DELETE FROM ${s}.user_state WHERE app_name = $1 AND user_id = $2 AND key = ANY($7::text[]))
       SELECT 1`,
    ),
    // $1 session pk, $2 new version (the event's seq), $3 event id, $4 timestamp, $5 event format, $6 event,
    // $7 last update time, $8 whether session keys change, $9/$10 session keys to set/remove, $11 expected
    // version, $12 format of the session keys' changes.
    // The stored state and the changes are merged as JSONB, so both must be in one format: a plain (1)
    // state meeting escaped (2) changes is escaped first. Escaping plain JSON only doubles the marker
    // U+FFFD (codec.ts), which plain state may hold, so it is one replace() on its text.
    writeEvent: query(
      'write_event',
      `WITH inserted AS (
         INSERT INTO ${s}.events (session_pk, seq, id, timestamp, format, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb))
       UPDATE ${s}.sessions SET version = $2, last_update_time = $7,
         state = CASE WHEN $8::boolean THEN (
             CASE WHEN state_format < $12 THEN replace(state::text, chr(65533), chr(65533) || 'fffd')::jsonb ELSE state END || $9::jsonb
           ) - $10::text[] ELSE state END,
         state_format = CASE WHEN $8::boolean THEN GREATEST(state_format, $12) ELSE state_format END
       WHERE pk = $1 AND version = $11`,
    ),
    // One statement, one round trip: the append of an event to a session still at version $11
    // whose lease epoch is $13 (NULL: no lease), with no event of id $3 yet. Any other case writes
    // nothing and returns no row; the locked transaction then decides what it is (see appendEvent).
    // $1 app, $2 user, $3 event id, $4 timestamp, $5 new version (the event's seq), $6 event format,
    // $7 event, $8 whether session keys change, $9/$10 session keys to set/remove, $11 expected
    // version, $12 format of the session keys' changes, $13 lease epoch, $14 session id.
    appendDirect: query(
      'append_direct',
      `WITH head AS (
         SELECT pk FROM ${s}.sessions
         WHERE app_name = $1 AND user_id = $2 AND id = $14 AND version = $11
           AND ($13::integer IS NULL OR lease_epoch = $13::integer)
         FOR UPDATE),
       inserted AS (
         INSERT INTO ${s}.events (session_pk, seq, id, timestamp, format, data)
         SELECT pk, $5, $3, $4, $6, $7::jsonb FROM head
         ON CONFLICT DO NOTHING
         RETURNING session_pk)
       UPDATE ${s}.sessions SET version = $5, last_update_time = GREATEST(last_update_time, $4),
         state = CASE WHEN $8::boolean THEN (
             CASE WHEN state_format < $12 THEN replace(state::text, chr(65533), chr(65533) || 'fffd')::jsonb ELSE state END || $9::jsonb
           ) - $10::text[] ELSE state END,
         state_format = CASE WHEN $8::boolean THEN GREATEST(state_format, $12) ELSE state_format END
       FROM inserted WHERE pk = inserted.session_pk
       RETURNING last_update_time`,
    ),
  };
}

/** A pool (one statement, one pooled connection) or a checked-out client (inside a transaction). */
export type Db = pg.Pool | pg.PoolClient;

/** Runs a named statement and returns its rows. */
export async function run<R extends pg.QueryResultRow = pg.QueryResultRow>(
  db: Db,
  query: Query,
  values: unknown[],
): Promise<R[]> {
  return (await execute<R>(db, query, values)).rows;
}

/** Runs a named statement and returns how many rows it changed. */
export async function runCount(db: Db, query: Query, values: unknown[]): Promise<number> {
  return (await execute(db, query, values)).rowCount ?? 0;
}

async function execute<R extends pg.QueryResultRow>(
  db: Db,
  query: Query,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>({ name: query.name, text: query.text, values });
  } catch (error) {
    // Values are escaped for JSONB (codec.ts); names and ids are stored as SQL text, which cannot hold NUL.
    if ((error as { code?: unknown }).code === '22021') {
      throw new ConfigurationError(
        `PostgreSQL refused a text value: ${(error as Error).message}. App names, user ids, session ids, event ids and lease owners cannot contain the character \\u0000; remove it.`,
      );
    }
    throw error;
  }
}
