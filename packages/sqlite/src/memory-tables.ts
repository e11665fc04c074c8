import type Database from 'better-sqlite3';
import type { Content, MemoryEntry } from '@troupe/core';

/**
 * The memory tables, created when missing. They are separate from the session schema (and its
 * version), so memory can share a file with `SqliteSessionService` or have one of its own. The FTS5
 * table indexes each memory's words (lowercased by the service, see `memoryWords`) under the rowid
 * of its `memories` row; `unicode61` with diacritics removed, so `cafe` also finds `café`. Its
 * `scope` column holds one token naming the app and user (see `scopeToken`), so a search
 * intersects the query's words with that user's entries inside the index instead of matching every
 * user's entries and filtering them afterwards. `memory_progress` records how far each session is
 * indexed (see `planMemoryUpdate`), so adding a session after a turn writes only that turn's
 * memories; a file made before it had this table gets it on open, and its sessions are indexed
 * whole once more on their next add. The vector part is added by `addVectorColumns`.
 */
export const CREATE_TABLES = `
  CREATE TABLE IF NOT EXISTS memories (
    id INTEGER PRIMARY KEY,
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    author TEXT,
    timestamp REAL,
    content TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS memories_session ON memories (app_name, user_id, session_id);
  CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(words, scope, tokenize = 'unicode61 remove_diacritics 2');
  CREATE TABLE IF NOT EXISTS memory_progress (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    event_count INTEGER NOT NULL,
    last_event_id TEXT,
    memory_count INTEGER NOT NULL,
    last_memory_id INTEGER,
    PRIMARY KEY (app_name, user_id, session_id)
  ) WITHOUT ROWID;
`;

export interface ProgressRow {
  event_count: number;
  last_event_id: string | null;
  memory_count: number;
  last_memory_id: number | null;
  /** The id of the session's last stored memory: a writer that keeps no progress changes it. */
  stored_last_id: number | null;
}

export interface MemoryRow {
  author: string | null;
  timestamp: number | null;
  content: string;
}

export function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
}

/** The statements that read and record how far each session is indexed. */
export function prepareProgress(db: Database.Database): {
  read: Database.Statement<[string, string, string], ProgressRow>;
  write: Database.Statement<[string, string, string, number, string | null, number, number | null]>;
} {
  return {
    read: db.prepare<[string, string, string], ProgressRow>(
      `SELECT p.event_count, p.last_event_id, p.memory_count, p.last_memory_id,
         (SELECT MAX(m.id) FROM memories m
          WHERE m.app_name = p.app_name AND m.user_id = p.user_id AND m.session_id = p.session_id) AS stored_last_id
       FROM memory_progress p WHERE p.app_name = ? AND p.user_id = ? AND p.session_id = ?`,
    ),
    write: db.prepare<[string, string, string, number, string | null, number, number | null]>(
      `INSERT INTO memory_progress (app_name, user_id, session_id, event_count, last_event_id, memory_count, last_memory_id)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET
         event_count = excluded.event_count, last_event_id = excluded.last_event_id,
         memory_count = excluded.memory_count, last_memory_id = excluded.last_memory_id`,
    ),
  };
}

/** The statements of memory's text side. */
export interface MemoryStatements {
  deleteWords: Database.Statement<[string, string, string]>;
  deleteMemories: Database.Statement<[string, string, string]>;
  insertMemory: Database.Statement<[string, string, string, string | null, number | null, string]>;
  insertWords: Database.Statement<[number | bigint, string, string]>;
  search: Database.Statement<[string, string, string, number], { id: number }>;
  entry: Database.Statement<[number], MemoryRow>;
}

export function prepareMemoryStatements(db: Database.Database): MemoryStatements {
  return {
    deleteWords: db.prepare<[string, string, string]>(
      'DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM memories WHERE app_name = ? AND user_id = ? AND session_id = ?)',
    ),
    deleteMemories: db.prepare<[string, string, string]>(
      'DELETE FROM memories WHERE app_name = ? AND user_id = ? AND session_id = ?',
    ),
    insertMemory: db.prepare<[string, string, string, string | null, number | null, string]>(
      'INSERT INTO memories (app_name, user_id, session_id, author, timestamp, content) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertWords: db.prepare<[number | bigint, string, string]>(
      'INSERT INTO memories_fts (rowid, words, scope) VALUES (?, ?, ?)',
    ),
    /** The user's memories sharing a word with the query, by BM25 (the FTS5 query also names the user's scope token). */
    search: db.prepare<[string, string, string, number], { id: number }>(
      `SELECT m.id FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
       WHERE memories_fts MATCH ? AND m.app_name = ? AND m.user_id = ?
       ORDER BY bm25(memories_fts, 1.0, 0.0), m.timestamp DESC, m.id DESC LIMIT ?`,
    ),
    entry: db.prepare<[number], MemoryRow>('SELECT author, timestamp, content FROM memories WHERE id = ?'),
  };
}

export function toEntry(row: MemoryRow): MemoryEntry {
  const entry: MemoryEntry = { content: JSON.parse(row.content) as Content };
  if (row.author !== null) entry.author = row.author;
  if (row.timestamp !== null) entry.timestamp = row.timestamp;
  return entry;
}

/** The text an embedder is given for a stored memory: its text parts, one per line (as `SessionMemory.text`). */
export function storedText(content: string): string {
  const parsed = JSON.parse(content) as Content;
  const texts: string[] = [];
  for (const part of parsed.parts) if ('text' in part && !part.thought) texts.push(part.text);
  return texts.join('\n');
}
