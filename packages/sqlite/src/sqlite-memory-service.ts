import type Database from 'better-sqlite3';
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
  memoryWords,
  planMemoryUpdate,
  reciprocalRankFusion,
  resolveMaxResults,
  resolveSearchMode,
  searchWords,
} from '@troupe/core/stores';
import { checkVectorOptions, type SqliteMemoryServiceOptions } from './memory-options.js';
import { resolveOptions } from './options.js';
import { openSqliteFile, siteOf } from './open-database.js';
import { guarded, type StorageSite } from './storage-errors.js';
import { CREATE_TABLES, hasTable, prepareMemoryStatements, prepareProgress, toEntry } from './memory-tables.js';
import { scopeToken } from './memory-scope.js';
import { addVectorColumns } from './memory-vector-schema.js';
import { MemoryVectors } from './memory-vectors.js';
import type { SqliteVectorSearch } from './vector-extension.js';

/** How many memories one pass of embedding reads from the file at a time. */
const EMBED_PAGE = 256;

/**
 * Long-term memory (SPEC §15, §19) kept in an SQLite file, alone or beside the sessions of a
 * `SqliteSessionService` on the same file. Words are searched with SQLite's full-text index (FTS5,
 * BM25 ranking); with an `embedder`, meaning is searched too: each memory gets a vector, and a
 * search finds the user's memories nearest the query's vector (`mode: 'vector'`), or merges both
 * rankings by reciprocal rank fusion (`'hybrid'`, the default with an embedder). Vectors are
 * searched with the sqlite-vec extension when it loads, else exactly (see `vectorExtension`).
 *
 * The query is split into words by the service and each word is quoted, so text such as
 * `"a" OR b*` or `NEAR(` is searched as words, never run as FTS5 syntax. Adding a session replaces
 * its earlier memories (writing only the new turns' when it grew since the last add) in one write
 * transaction, so several services and processes may share the file; the new memories are then
 * embedded, outside the transaction, and their vectors written.
 *
 * @example
 * import { SqliteMemoryService, SqliteSessionService } from '@troupe/sqlite';
 * import { openaiEmbedder } from '@troupe/models';
 *
 * const sessionService = new SqliteSessionService({ path: '.troupe/troupe.db' });
 * const memoryService = new SqliteMemoryService({ path: '.troupe/troupe.db', embedder: openaiEmbedder() });
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
  private readonly sql: ReturnType<typeof prepareMemoryStatements>;
  private readonly add: Database.Transaction<(session: Session) => void>;
  private readonly vectors: MemoryVectors | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;
  private closed = false;

  /**
   * Opens (or creates) the file and its memory tables.
   * @throws ConfigurationError for an invalid option; `StorageError` when the file cannot be opened or written.
   */
  constructor(options: SqliteMemoryServiceOptions) {
    const resolved = resolveOptions(options, 'SqliteMemoryService');
    this.maxResults = resolveMaxResults(options.maxResults, 'SqliteMemoryService');
    const { vectorExtension = true, onWarning, onError } = options;
    const embedder = checkEmbedder(options.embedder, 'SqliteMemoryService');
    checkVectorOptions(options);
    this.onError = onError;
    this.path = resolved.path;
    this.site = siteOf(resolved, 'memory store');
    this.db = openSqliteFile(
      resolved,
      (db) => {
        // A read-only connection cannot create them; without the tables there is nothing to read.
        if (resolved.readonly) return;
        db.exec(CREATE_TABLES);
        if (embedder) addVectorColumns(db);
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
    this.sql = prepareMemoryStatements(this.db);
    try {
      this.vectors =
        embedder &&
        guarded(
          this.site,
          !resolved.readonly,
          () => 'prepare its memory vectors',
          () => new MemoryVectors(this.db, embedder, { path: resolved.path, vectorExtension, onWarning }),
        );
    } catch (error) {
      this.db.close();
      throw error;
    }
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
        this.vectors?.index.forgetSession(...key);
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

  /**
   * How this service searches by meaning: `'sqlite-vec'` (the extension's KNN index), `'exact'`
   * (every stored vector of the user compared with the query: sqlite-vec was turned off or could
   * not be loaded, see `onWarning`), or `'none'` (no embedder: words only).
   */
  get vectorSearch(): SqliteVectorSearch {
    return this.vectors?.search ?? 'none';
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'SqliteMemoryService');
    this.assertOpen();
    this.vectors?.assertUsable();
    guarded(
      this.site,
      true,
      () => `add session '${session.id}' to memory`,
      () => this.add.immediate(session),
    );
    // The text is stored; a provider failure leaves the vectors for the next add.
    if (!this.vectors) return;
    try {
      await this.embedPending(this.vectors);
    } catch (error) {
      if (!this.onError) throw error;
      this.onError(error);
    }
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'SqliteMemoryService');
    const { mode, limit } = resolveSearchMode(params, {
      service: 'SqliteMemoryService',
      embedder: this.vectors?.embedder,
      maxResults: this.maxResults,
    });
    this.assertOpen();
    // A query without a word (blank, punctuation only) asks nothing, by meaning either.
    if (words.length === 0) return { memories: [] };
    const { appName, userId } = params;
    // Hybrid fuses two longer lists, so a memory ranked well by one and not found by the other still makes it.
    const candidates = mode === 'hybrid' ? Math.max(limit * 3, 30) : limit;
    const byWords = mode === 'vector' ? [] : this.keywordIds(params, words, candidates);
    const byMeaning =
      mode === 'keyword' ? [] : await this.vectors!.nearestIds(appName, userId, params.query, candidates);
    const ids =
      mode === 'keyword'
        ? byWords
        : mode === 'vector'
          ? byMeaning
          : reciprocalRankFusion([byMeaning, byWords]).slice(0, limit);
    const memories = [];
    for (const id of ids.slice(0, limit)) {
      const row = this.sql.entry.get(id);
      if (row) memories.push(toEntry(row));
    }
    return { memories };
  }

  /**
   * Embeds every memory of the file again with the service's embedder, after a switch of model (a
   * file holding vectors of another model is refused until then). Drops the old vectors first;
   * memories stay searchable by words meanwhile. A provider failure rejects, and the memories not
   * embedded yet are embedded by the next add or reindex.
   * @returns how many memories were embedded.
   * @throws ConfigurationError without an embedder.
   */
  async reindex(): Promise<{ memories: number }> {
    this.assertOpen();
    if (!this.vectors)
      throw new ConfigurationError(
        `SqliteMemoryService.reindex() for '${this.path}' needs an embedder: new SqliteMemoryService({ path, embedder }).`,
      );
    const vectors = this.vectors;
    guarded(
      this.site,
      true,
      () => 'drop its memory vectors for a re-index',
      () => vectors.reset(),
    );
    return { memories: await this.embedPending(vectors) };
  }

  /** Closes the file. Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /** Embeds the memories without a vector, page by page; rejects on the first failure (what was written stays). Answers how many. */
  private async embedPending(vectors: MemoryVectors): Promise<number> {
    let count = 0;
    for (let after = 0; ;) {
      const page = guarded(
        this.site,
        false,
        () => 'read the memories to embed',
        () => vectors.index.unembedded(after, EMBED_PAGE),
      );
      if (page.length === 0 || this.closed) return count;
      after = page.at(-1)!.id;
      const embedded = await vectors.embed(page);
      // Closed while the provider answered: the next service embeds them.
      if (this.closed) return count;
      guarded(
        this.site,
        true,
        () => 'store memory vectors',
        () => vectors.index.write(page, embedded),
      );
      count += page.length;
    }
  }

  private keywordIds(params: SearchMemoryParams, words: string[], limit: number): number[] {
    // Each word a quoted FTS5 string (quotes doubled, though words never hold one): never syntax.
    const match = `scope: ${scopeToken(params.appName, params.userId)} AND words: (${words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ')})`;
    const rows = guarded(
      this.site,
      false,
      () => `search the memory of user '${params.userId}'`,
      () => this.sql.search.all(match, params.appName, params.userId, limit),
    );
    return rows.map((row) => row.id);
  }

  private assertOpen(): void {
    if (this.closed)
      throw new ConfigurationError(
        `The SqliteMemoryService for '${this.path}' is closed. Create a new SqliteMemoryService to use the file again.`,
      );
  }
}
