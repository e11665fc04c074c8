import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  ConfigurationError,
  type Content,
  type MemoryEntry,
  type MemoryService,
  type SearchMemoryParams,
  type SearchMemoryResponse,
  type Session,
} from '@troupe/core';
import { checkMemorySession, memoryWords, planMemoryUpdate, resolveMaxResults, searchWords } from '@troupe/core/stores';
import { resolveOptions, type SqliteSessionServiceOptions } from './options.js';
import { openSqliteFile, siteOf } from './open-database.js';
import { guarded, type StorageSite } from './storage-errors.js';

/** Options of {@link SqliteMemoryService}: the file options of `SqliteSessionService`, and `maxResults`. */
export interface SqliteMemoryServiceOptions extends SqliteSessionServiceOptions {
  /** The most memories one search returns, best first. @default 10 */
  maxResults?: number;
}

/**
 * The memory tables, created when missing. They are separate from the session schema (and its
 * version), so memory can share a file with `SqliteSessionService` or have one of its own. The FTS5
 * table indexes each memory's words (lowercased by the service, see `memoryWords`) under the rowid
 * of its `memories` row; `unicode61` with diacritics removed, so `cafe` also finds `café`. Its
 * `scope` column holds one token naming the app and user (see {@link scopeToken}), so a search
 * intersects the query's words with that user's entries inside the index instead of matching every
 * user's entries and filtering them afterwards. `memory_progress` records how far each session is
 * indexed (see `planMemoryUpdate`), so adding a session after a turn writes only that turn's
 * memories; a file made before it had this table gets it on open, and its sessions are indexed
 * whole once more on their next add.
 */
const CREATE_TABLES = `
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

interface ProgressRow {
  event_count: number;
  last_event_id: string | null;
  memory_count: number;
  last_memory_id: number | null;
  /** The id of the session's last stored memory: a writer that keeps no progress changes it. */
  stored_last_id: number | null;
}

interface MemoryRow {
  author: string | null;
  timestamp: number | null;
  content: string;
}

/**
 * Long-term memory (SPEC §15) kept in an SQLite file and searched with SQLite's full-text index
 * (FTS5), alone or beside the sessions of a `SqliteSessionService` on the same file. A search finds
 * the user's memories sharing a word with the query, ranked by BM25 (entries sharing more, and
 * rarer, words first), at most `maxResults`. The query is split into words by the service and each
 * word is quoted, so text such as `"a" OR b*` or `NEAR(` is searched as words, never run as FTS5
 * syntax. Adding a session replaces its earlier memories (writing only the new turns' when it
 * grew since the last add) in one write transaction, so several services and processes may share
 * the file.
 *
 * @example
 * import { SqliteMemoryService, SqliteSessionService } from '@troupe/sqlite';
 *
 * const sessionService = new SqliteSessionService({ path: '.troupe/troupe.db' });
 * const memoryService = new SqliteMemoryService({ path: '.troupe/troupe.db' });
 * const runner = new Runner({ appName: 'assistant', agent, sessionService, memoryService });
 * // after a conversation:
 * await memoryService.addSessionToMemory((await sessionService.getSession({ appName: 'assistant', userId, sessionId }))!);
 */
export class SqliteMemoryService implements MemoryService {
  /** The database file, as given. */
  readonly path: string;
  private readonly site: StorageSite;
  private readonly db: Database.Database;
  private readonly maxResults: number;
  private readonly sql: ReturnType<typeof prepare>;
  private readonly add: Database.Transaction<(session: Session) => void>;
  private closed = false;

  /**
   * Opens (or creates) the file and its memory tables.
   * @throws ConfigurationError for an invalid option; `StorageError` when the file cannot be opened or written.
   */
  constructor(options: SqliteMemoryServiceOptions) {
    const resolved = resolveOptions(options, 'SqliteMemoryService');
    this.maxResults = resolveMaxResults(options.maxResults, 'SqliteMemoryService');
    this.path = resolved.path;
    this.site = siteOf(resolved, 'memory store');
    this.db = openSqliteFile(
      resolved,
      (db) => {
        // A read-only connection cannot create them; without the tables there is nothing to read.
        if (!resolved.readonly) db.exec(CREATE_TABLES);
      },
      'memory store',
    );
    const tables = this.db
      .prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('memories', 'memories_fts')")
      .get();
    if (tables?.n !== 2) {
      this.db.close();
      throw new ConfigurationError(
        `The SQLite file '${resolved.path}' has no memory tables yet, and SqliteMemoryService was opened with readonly: true. Open it once without readonly to create them.`,
      );
    }
    this.sql = prepare(this.db);
    // A readonly service over a file from before `memory_progress` cannot add anyway.
    const progress = hasTable(this.db, 'memory_progress') ? prepareProgress(this.db) : undefined;
    this.add = this.db.transaction((session: Session) => {
      const key = [session.appName, session.userId, session.id] as const;
      const row = progress?.read.get(...key);
      // An older Troupe sharing the file replaces a session's memories without recording progress.
      const indexed =
        row !== undefined && row.stored_last_id === row.last_memory_id
          ? { eventCount: row.event_count, lastEventId: row.last_event_id ?? undefined, memoryCount: row.memory_count }
          : undefined;
      const update = planMemoryUpdate(session, indexed);
      if (update.kind === 'replace') {
        this.sql.deleteWords.run(...key);
        this.sql.deleteMemories.run(...key);
      }
      let lastMemoryId = update.kind === 'append' ? (row?.last_memory_id ?? null) : null;
      for (const { entry, text } of update.memories) {
        const { lastInsertRowid } = this.sql.insertMemory.run(
          ...key,
          entry.author ?? null,
          entry.timestamp ?? null,
          JSON.stringify(entry.content),
        );
        this.sql.insertWords.run(
          lastInsertRowid,
          memoryWords(text).join(' '),
          scopeToken(session.appName, session.userId),
        );
        lastMemoryId = Number(lastInsertRowid);
      }
      const { eventCount, lastEventId, memoryCount } = update.progress;
      progress?.write.run(...key, eventCount, lastEventId ?? null, memoryCount, lastMemoryId);
    });
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'SqliteMemoryService');
    this.assertOpen();
    guarded(
      this.site,
      true,
      () => `add session '${session.id}' to memory`,
      () => this.add.immediate(session),
    );
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'SqliteMemoryService');
    this.assertOpen();
    if (words.length === 0) return { memories: [] };
    // Each word a quoted FTS5 string (quotes doubled, though words never hold one): never syntax.
    const match = `scope: ${scopeToken(params.appName, params.userId)} AND words: (${words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ')})`;
    const rows = guarded(
      this.site,
      false,
      () => `search the memory of user '${params.userId}'`,
      () => this.sql.search.all(match, params.appName, params.userId, this.maxResults),
    );
    return { memories: rows.map(toEntry) };
  }

  /** Closes the file. Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed)
      throw new ConfigurationError(
        `The SqliteMemoryService for '${this.path}' is closed. Create a new SqliteMemoryService to use the file again.`,
      );
  }
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
}

function prepareProgress(db: Database.Database) {
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

function prepare(db: Database.Database) {
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
    search: db.prepare<[string, string, string, number], MemoryRow>(
      `SELECT m.author, m.timestamp, m.content FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
       WHERE memories_fts MATCH ? AND m.app_name = ? AND m.user_id = ?
       ORDER BY bm25(memories_fts, 1.0, 0.0), m.timestamp DESC, m.id DESC LIMIT ?`,
    ),
  };
}

/**
 * One FTS5 token for an app and user: `s` and 32 hex digits of the SHA-256 of both names (letters
 * and digits only, so the tokenizer keeps it whole). The exact names are checked too, on the join.
 */
function scopeToken(appName: string, userId: string): string {
  return `s${createHash('sha256')
    .update(JSON.stringify([appName, userId]))
    .digest('hex')
    .slice(0, 32)}`;
}

function toEntry(row: MemoryRow): MemoryEntry {
  const entry: MemoryEntry = { content: JSON.parse(row.content) as Content };
  if (row.author !== null) entry.author = row.author;
  if (row.timestamp !== null) entry.timestamp = row.timestamp;
  return entry;
}
