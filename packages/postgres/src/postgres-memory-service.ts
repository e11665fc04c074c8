import {
  type Content,
  type MemoryEntry,
  type MemoryService,
  type SearchMemoryParams,
  type SearchMemoryResponse,
  type Session,
} from '@troupe/core';
import { checkMemorySession, memoryWords, planMemoryUpdate, resolveMaxResults, searchWords } from '@troupe/core/stores';
import { resolveOptions, type PostgresSessionServiceOptions } from './options.js';
import { asStorageError } from './pool.js';
import { SideTable } from './side-table.js';
import { inTransaction } from './transaction.js';

/** Options of {@link PostgresMemoryService}: those of `PostgresSessionService`, and `maxResults`. */
export interface PostgresMemoryServiceOptions extends PostgresSessionServiceOptions {
  /** The most memories one search returns, best first. @default 10 */
  maxResults?: number;
}

interface ProgressRow {
  event_count: number;
  last_event_id: string | null;
  memory_count: number;
  /** One past the session's highest memory seq: differs from memory_count after a writer that keeps no progress. */
  stored: number;
}

interface MemoryRow {
  author: string | null;
  timestamp: number | null;
  content: string;
}

/**
 * Long-term memory (SPEC §15) kept in PostgreSQL and searched with its full-text search: a
 * `memories` table in the `schema` (the session store's by default; created when missing and not
 * part of the session schema's versions) with a `tsvector` of each memory's words under a GIN
 * index. A search finds the user's memories sharing a word with the query, ranked by `ts_rank`
 * (entries matching more of the words first), at most `maxResults`.
 *
 * Words are cut and lowercased by the service (see `memoryWords`, the same for every Troupe memory
 * store) and indexed with the language-neutral `simple` configuration, so any script works and no
 * database locale changes what matches. The query becomes an OR of those words, each a quoted
 * `tsquery` lexeme: text such as `'a' | b:*` or `!(` is searched as words, never run as syntax.
 * Adding a session replaces its earlier memories in one transaction (under an advisory lock on the
 * session), so several services and processes may share the database. A table beside it records
 * how far each session is indexed, so an add after a turn writes only that turn's memories.
 *
 * @example
 * import { PostgresMemoryService } from '@troupe/postgres';
 *
 * const memoryService = new PostgresMemoryService({ connectionString: process.env.DATABASE_URL });
 * const runner = new Runner({ appName: 'assistant', agent, sessionService, memoryService });
 * // after a conversation:
 * await memoryService.addSessionToMemory((await sessionService.getSession({ appName: 'assistant', userId, sessionId }))!);
 * await memoryService.close();
 */
export class PostgresMemoryService implements MemoryService {
  private readonly table: SideTable;
  private readonly maxResults: number;

  constructor(options: PostgresMemoryServiceOptions) {
    const resolved = resolveOptions(options, 'PostgresMemoryService');
    this.maxResults = resolveMaxResults(options.maxResults, 'PostgresMemoryService');
    // content is JSON as text: JSONB cannot hold the \u0000 a message may contain.
    this.table = new SideTable(resolved, 'PostgresMemoryService', 'memories', async (client, name) => {
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${name} (
          app_name TEXT NOT NULL,
          user_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          seq INTEGER NOT NULL,
          author TEXT,
          timestamp DOUBLE PRECISION,
          content TEXT NOT NULL,
          words TSVECTOR NOT NULL,
          PRIMARY KEY (app_name, user_id, session_id, seq)
        )`);
      await client.query(`CREATE INDEX IF NOT EXISTS memories_words ON ${name} USING GIN (words)`);
      // How far each session is indexed (see planMemoryUpdate): an add after a turn writes that turn only.
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${name}_progress (
          app_name TEXT NOT NULL,
          user_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          event_count INTEGER NOT NULL,
          last_event_id TEXT,
          memory_count INTEGER NOT NULL,
          PRIMARY KEY (app_name, user_id, session_id)
        )`);
    });
  }

  /** The PostgreSQL schema holding the table. */
  get schema(): string {
    return this.table.schema;
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'PostgresMemoryService');
    await this.table.ensureReady();
    const key = [session.appName, session.userId, session.id];
    const table = this.table.name;
    await inTransaction(
      this.table.pool,
      async (client) => {
        // Adds of one session take turns (each reads how far the session is indexed, then writes); other sessions are not blocked.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          JSON.stringify(['troupe-memory', this.table.schema, ...key]),
        ]);
        const { rows } = await client.query<ProgressRow>(
          `SELECT p.event_count, p.last_event_id, p.memory_count,
             (SELECT COALESCE(MAX(m.seq) + 1, 0) FROM ${table} m
              WHERE m.app_name = p.app_name AND m.user_id = p.user_id AND m.session_id = p.session_id)::int AS stored
           FROM ${table}_progress p WHERE p.app_name = $1 AND p.user_id = $2 AND p.session_id = $3`,
          key,
        );
        const row = rows[0];
        // An older Troupe sharing the database replaces a session's memories without recording progress.
        const indexed =
          row !== undefined && row.stored === row.memory_count
            ? {
                eventCount: row.event_count,
                lastEventId: row.last_event_id ?? undefined,
                memoryCount: row.memory_count,
              }
            : undefined;
        const update = planMemoryUpdate(session, indexed);
        if (update.kind === 'replace')
          await client.query(`DELETE FROM ${table} WHERE app_name = $1 AND user_id = $2 AND session_id = $3`, key);
        const { memories, progress } = update;
        // Appended memories number on from those kept.
        const firstSeq = progress.memoryCount - memories.length;
        await client.query(
          `WITH added AS (
             INSERT INTO ${table} (app_name, user_id, session_id, seq, author, timestamp, content, words)
             SELECT $1, $2, $3, m.seq, m.author, m.timestamp, m.content, to_tsvector('simple', m.words)
             FROM unnest($4::int[], $5::text[], $6::float8[], $7::text[], $8::text[]) AS m (seq, author, timestamp, content, words)
           )
           INSERT INTO ${table}_progress (app_name, user_id, session_id, event_count, last_event_id, memory_count)
           VALUES ($1, $2, $3, $9, $10, $11)
           ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET
             event_count = EXCLUDED.event_count, last_event_id = EXCLUDED.last_event_id, memory_count = EXCLUDED.memory_count`,
          [
            ...key,
            memories.map((_, i) => firstSeq + i),
            memories.map(({ entry }) => entry.author ?? null),
            memories.map(({ entry }) => entry.timestamp ?? null),
            memories.map(({ entry }) => JSON.stringify(entry.content)),
            memories.map(({ text }) => memoryWords(text).join(' ')),
            progress.eventCount,
            progress.lastEventId ?? null,
            progress.memoryCount,
          ],
        );
      },
      {
        action: `adding session '${session.id}' to memory`,
        ifCommitLost: 'Adding the session again is safe: it never adds a turn twice.',
      },
    );
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'PostgresMemoryService');
    if (words.length === 0) {
      this.table.assertOpen();
      return { memories: [] };
    }
    await this.table.ensureReady();
    // Words hold only letters, digits and marks; quoted as lexemes besides, they cannot be tsquery syntax.
    const query = words.map((word) => `'${word}'`).join(' | ');
    try {
      const { rows } = await this.table.pool.query<MemoryRow>(
        `SELECT author, timestamp, content FROM ${this.table.name}, to_tsquery('simple', $3) AS query
         WHERE app_name = $1 AND user_id = $2 AND words @@ query
         ORDER BY ts_rank(words, query) DESC, timestamp DESC NULLS LAST, session_id, seq LIMIT $4`,
        [params.appName, params.userId, query, this.maxResults],
      );
      return { memories: rows.map(toEntry) };
    } catch (error) {
      throw asStorageError(`searching the memory of user '${params.userId}'`, error);
    }
  }

  /** Closes the pool the service opened (a pool passed in stays open). Later calls fail; closing twice is harmless. */
  close(): Promise<void> {
    return this.table.close();
  }
}

function toEntry(row: MemoryRow): MemoryEntry {
  const entry: MemoryEntry = { content: JSON.parse(row.content) as Content };
  if (row.author !== null) entry.author = row.author;
  if (row.timestamp !== null) entry.timestamp = row.timestamp;
  return entry;
}
