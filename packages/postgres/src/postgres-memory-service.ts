import type pg from 'pg';
import { ConfigurationError, type Content, type MemoryEntry, type MemoryService, type SearchMemoryParams, type SearchMemoryResponse, type Session } from '@troupe/core';
import { checkMemorySession, memoryWords, resolveMaxResults, searchWords, sessionMemories } from '@troupe/core/stores';
import { resolveOptions, type PostgresSessionServiceOptions } from './options.js';
import { asStorageError, listenForIdleErrors, openPool } from './pool.js';
import { quoteIdentifier } from './schema.js';
import { inTransaction } from './transaction.js';

/** Options of {@link PostgresMemoryService}: those of `PostgresSessionService`, and `maxResults`. */
export interface PostgresMemoryServiceOptions extends PostgresSessionServiceOptions {
  /** The most memories one search returns, best first. @default 10 */
  maxResults?: number;
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
 * session), so several services and processes may share the database.
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
  /** The PostgreSQL schema holding the table. */
  readonly schema: string;
  private readonly table: string;
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly stopListening: () => void;
  private readonly maxResults: number;
  private ready: Promise<void> | undefined;
  private closed = false;

  constructor(options: PostgresMemoryServiceOptions) {
    const resolved = resolveOptions(options, 'PostgresMemoryService');
    this.maxResults = resolveMaxResults(options.maxResults, 'PostgresMemoryService');
    this.schema = resolved.schema;
    this.table = `${quoteIdentifier(resolved.schema)}.memories`;
    this.ownsPool = resolved.pool === undefined;
    this.pool =
      resolved.pool ??
      openPool({
        connectionString: resolved.connectionString,
        applicationName: resolved.applicationName,
        connectTimeoutMs: resolved.connectTimeoutMs,
        idleInTransactionTimeoutMs: resolved.idleInTransactionTimeoutMs,
      });
    this.stopListening = listenForIdleErrors(this.pool);
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'PostgresMemoryService');
    await this.ensureReady();
    const key = [session.appName, session.userId, session.id];
    const memories = sessionMemories(session);
    await inTransaction(
      this.pool,
      async (client) => {
        // Adds of one session take turns (each deletes, then inserts); other sessions are not blocked.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [JSON.stringify(['troupe-memory', this.schema, ...key])]);
        await client.query(`DELETE FROM ${this.table} WHERE app_name = $1 AND user_id = $2 AND session_id = $3`, key);
        if (memories.length === 0) return;
        await client.query(
          `INSERT INTO ${this.table} (app_name, user_id, session_id, seq, author, timestamp, content, words)
           SELECT $1, $2, $3, m.seq, m.author, m.timestamp, m.content, to_tsvector('simple', m.words)
           FROM unnest($4::int[], $5::text[], $6::float8[], $7::text[], $8::text[]) AS m (seq, author, timestamp, content, words)`,
          [
            ...key,
            memories.map((_, i) => i),
            memories.map(({ entry }) => entry.author ?? null),
            memories.map(({ entry }) => entry.timestamp ?? null),
            memories.map(({ entry }) => JSON.stringify(entry.content)),
            memories.map(({ text }) => memoryWords(text).join(' ')),
          ],
        );
      },
      { action: `adding session '${session.id}' to memory`, ifCommitLost: 'Adding the session again is safe: it replaces what it added.' },
    );
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'PostgresMemoryService');
    if (words.length === 0) {
      this.assertOpen();
      return { memories: [] };
    }
    await this.ensureReady();
    // Words hold only letters, digits and marks; quoted as lexemes besides, they cannot be tsquery syntax.
    const query = words.map((word) => `'${word}'`).join(' | ');
    try {
      const { rows } = await this.pool.query<MemoryRow>(
        `SELECT author, timestamp, content FROM ${this.table}, to_tsquery('simple', $3) AS query
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
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
    this.stopListening();
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new ConfigurationError(`The PostgresMemoryService for schema '${this.schema}' is closed. Create a new PostgresMemoryService to use the database again.`);
    }
  }

  private ensureReady(): Promise<void> {
    this.assertOpen();
    this.ready ??= this.createTable().catch((error: unknown) => {
      // Let the next call try again: the server may have been down.
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async createTable(): Promise<void> {
    await inTransaction(
      this.pool,
      async (client) => {
        // The session store's lock on the schema: services starting together (of any kind) create it once.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`troupe-session-schema:${this.schema}`]);
        // CREATE SCHEMA needs the CREATE privilege even when the schema exists, so look first.
        const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
        if (existing.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(this.schema)}`);
        // content is JSON as text: JSONB cannot hold the \u0000 a message may contain.
        await client.query(`
          CREATE TABLE IF NOT EXISTS ${this.table} (
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
        await client.query(`CREATE INDEX IF NOT EXISTS memories_words ON ${this.table} USING GIN (words)`);
      },
      { action: `preparing the memories table in schema '${this.schema}'`, ifCommitLost: 'The next call checks the table again.' },
    );
  }
}

function toEntry(row: MemoryRow): MemoryEntry {
  const entry: MemoryEntry = { content: JSON.parse(row.content) as Content };
  if (row.author !== null) entry.author = row.author;
  if (row.timestamp !== null) entry.timestamp = row.timestamp;
  return entry;
}
