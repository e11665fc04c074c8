import {
  ConfigurationError,
  type MemoryService,
  type SearchMemoryParams,
  type SearchMemoryResponse,
  type Session,
} from '@troupe/core';
import {
  checkEmbedder,
  checkMemorySession,
  planMemoryUpdate,
  reciprocalRankFusion,
  resolveMaxResults,
  resolveSearchMode,
  searchWords,
  type MemoryProgress,
} from '@troupe/core/stores';
import type { PostgresVectorSearch } from './memory-vector-columns.js';
import { keywordRows, toEntry, type RankedRow } from './memory-queries.js';
import { MemoryVectors } from './memory-vectors.js';
import { checkVectorOptions, type PostgresMemoryServiceOptions } from './memory-options.js';
import { resolveOptions } from './options.js';
import { asStorageError } from './pool.js';
import { SideTable } from './side-table.js';
import { inTransaction } from './transaction.js';
import { addIfUnchanged, KnownProgress, memoryColumns } from './memory-add.js';

interface ProgressRow {
  event_count: number;
  last_event_id: string | null;
  memory_count: number;
  /** One past the session's highest memory seq: differs from memory_count after a writer that keeps no progress. */
  stored: number;
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
/** Sessions of at most this many events are added in one statement the first time this service sees them. */
const FIRST_SIGHT_EVENTS = 16;
const UNIQUE_VIOLATION = '23505';
const SAFE_TO_REPEAT = 'Adding the session again is safe: it never adds a turn twice.';

export class PostgresMemoryService implements MemoryService {
  private readonly table: SideTable;
  /** The progress this service last wrote per session, so its next add is one statement. */
  private readonly progress = new KnownProgress();
  private readonly maxResults: number;
  private readonly vectors: MemoryVectors | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;

  constructor(options: PostgresMemoryServiceOptions) {
    const { vectorExtension = true, onWarning, onError } = options;
    const resolved = resolveOptions(options, 'PostgresMemoryService');
    const embedder = checkEmbedder(options.embedder, 'PostgresMemoryService');
    this.maxResults = resolveMaxResults(options.maxResults, 'PostgresMemoryService');
    checkVectorOptions(options);
    this.onError = onError;
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
      await this.vectors?.prepare(client);
    });
    this.vectors =
      embedder && new MemoryVectors(embedder, this.table.name, this.table.schema, vectorExtension, onWarning);
  }

  /**
   * How this service searches by meaning: `'pgvector'`, `'exact'` (in SQL over `real[]`: pgvector
   * is missing or turned off, see `onWarning`), or `'none'` (no embedder: words only). Known once
   * the table is ready (after the first call); `'exact'` until then with an embedder.
   */
  get vectorSearch(): PostgresVectorSearch {
    return this.vectors ? (this.vectors.search ?? 'exact') : 'none';
  }

  /** The PostgreSQL schema holding the table. */
  get schema(): string {
    return this.table.schema;
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'PostgresMemoryService');
    await this.table.ensureReady();
    this.vectors?.assertUsable();
    const key = [session.appName, session.userId, session.id];
    const action = `adding session '${session.id}' to memory`;
    if ((await this.addInOneStatement(key, session, action)) === undefined) await this.addLocked(key, session, action);
    // The text is stored; a provider failure leaves the vectors for the next add.
    if (!this.vectors) return;
    try {
      await this.vectors.embedPending(this.table.pool);
    } catch (error) {
      const reported = asStorageError('embedding memories', error);
      if (!this.onError) throw reported;
      this.onError(reported);
    }
  }

  /**
   * The usual add, in one statement: after this service's own last add of the session (it knows
   * the progress), or the first add of a short session. Undefined when the stored progress was not
   * the expected one (another process added it, a rewind): then the locked transaction does it.
   */
  private async addInOneStatement(
    key: readonly string[],
    session: Session,
    action: string,
  ): Promise<MemoryProgress | undefined> {
    const known = this.progress.get(key);
    // A long session seen the first time was probably indexed elsewhere: planning it whole to find out would be wasted.
    if (known === undefined && session.events.length > FIRST_SIGHT_EVENTS) return undefined;
    let written: MemoryProgress | undefined;
    try {
      written = await addIfUnchanged(this.table.pool, this.table.name, key, session, known);
    } catch (error) {
      // Two first adds of one session racing: the loser takes the locked path.
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return undefined;
      throw asStorageError(action, error, SAFE_TO_REPEAT);
    }
    if (written) this.progress.set(key, written);
    return written;
  }

  /** Adds under the session's advisory lock: reads the stored progress, then writes what is new (or replaces). */
  private async addLocked(key: string[], session: Session, action: string): Promise<void> {
    const table = this.table.name;
    const written = await inTransaction(
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
        const { progress } = update;
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
          [...key, ...memoryColumns(update), progress.eventCount, progress.lastEventId ?? null, progress.memoryCount],
        );
        return progress;
      },
      { action, ifCommitLost: SAFE_TO_REPEAT },
    );
    this.progress.set(key, written);
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'PostgresMemoryService');
    const { mode, limit } = resolveSearchMode(params, {
      service: 'PostgresMemoryService',
      embedder: this.vectors?.embedder,
      maxResults: this.maxResults,
    });
    // A query without a word (blank, punctuation only) asks nothing, by meaning either.
    if (words.length === 0) {
      this.table.assertOpen();
      return { memories: [] };
    }
    await this.table.ensureReady();
    // Hybrid fuses two longer lists, so a memory ranked well by one and not found by the other still makes it.
    const candidates = mode === 'hybrid' ? Math.max(limit * 3, 30) : limit;
    const [byWords, byMeaning] = await Promise.all([
      mode === 'vector' ? [] : this.keywordRowsOf(params, words, candidates),
      mode === 'keyword'
        ? []
        : this.vectors!.nearest(this.table.pool, params.appName, params.userId, params.query, candidates).catch(
            (error: unknown) => {
              throw asStorageError(`searching the memory of user '${params.userId}' by meaning`, error);
            },
          ),
    ]);
    if (mode !== 'hybrid') return { memories: (mode === 'keyword' ? byWords : byMeaning).slice(0, limit).map(toEntry) };
    const rows = new Map<string, RankedRow>();
    const keyed = (list: RankedRow[]) =>
      list.map((row) => {
        const key = JSON.stringify([row.session_id, row.seq]);
        rows.set(key, row);
        return key;
      });
    const fused = reciprocalRankFusion([keyed(byMeaning), keyed(byWords)]).slice(0, limit);
    return { memories: fused.map((key) => toEntry(rows.get(key)!)) };
  }

  /**
   * Embeds every memory of the table again with the service's embedder, after a switch of model (a
   * table holding vectors of another model is refused until then). Drops the old vectors first;
   * memories stay searchable by words meanwhile. A provider failure rejects; the memories not
   * embedded yet are embedded by the next add or reindex.
   * @returns how many memories were embedded.
   * @throws ConfigurationError without an embedder.
   */
  async reindex(): Promise<{ memories: number }> {
    if (!this.vectors)
      throw new ConfigurationError(
        `PostgresMemoryService.reindex() (schema '${this.table.schema}') needs an embedder: new PostgresMemoryService({ connectionString, embedder }).`,
      );
    const vectors = this.vectors;
    await this.table.ensureReady();
    await inTransaction(this.table.pool, (client) => vectors.reset(client), {
      action: 'dropping memory vectors for a re-index',
      ifCommitLost: 'Call reindex() again.',
    });
    return { memories: await vectors.embedPending(this.table.pool) };
  }

  private async keywordRowsOf(params: SearchMemoryParams, words: string[], limit: number): Promise<RankedRow[]> {
    try {
      return await keywordRows(this.table.pool, this.table.name, params, words, limit);
    } catch (error) {
      throw asStorageError(`searching the memory of user '${params.userId}'`, error);
    }
  }

  /** Closes the pool the service opened (a pool passed in stays open). Later calls fail; closing twice is harmless. */
  close(): Promise<void> {
    return this.table.close();
  }
}
