import type Database from 'better-sqlite3';
import { knnTableName } from './memory-vector-schema.js';
import { scopeToken } from './memory-scope.js';
import { dotProduct } from '@troupe/core/stores';
import { fromBlob, toBlob } from './vector-blob.js';

/** A memory near a query: its row id and cosine similarity (higher is nearer). */
export interface VectorHit {
  id: number;
  score: number;
}

/** A memory waiting for its vector: its row id and stored content (JSON), which the write checks again. */
export interface UnembeddedMemory {
  id: number;
  content: string;
}

/** The most neighbours one sqlite-vec KNN query returns (the extension's own limit). */
const MAX_KNN = 4096;

/**
 * The vectors of one file's memories: writing them, and finding a user's memories nearest a query,
 * with sqlite-vec's KNN table (`vec0`, partitioned by user, cosine distance) or by comparing the
 * query with each of the user's stored vectors (`exact`). In both, the vectors in `memories.vector`
 * are the truth: KNN candidates are scored again from them, so a KNN row another writer left behind
 * (an older Troupe deleting memories) is dropped rather than returned.
 */
export class MemoryVectorIndex {
  private readonly knn: string;
  private readonly sql: ReturnType<typeof prepare>;
  private readonly vec: ReturnType<typeof prepareKnn> | undefined;

  constructor(
    private readonly db: Database.Database,
    /** `'sqlite-vec'` when the extension is loaded in `db`. */
    readonly search: 'sqlite-vec' | 'exact',
    readonly dimensions: number,
    readonly: boolean,
  ) {
    this.knn = knnTableName(dimensions);
    this.sql = prepare(db);
    if (search === 'sqlite-vec' && !readonly) {
      const created = !this.hasKnnTable();
      if (created)
        db.exec(
          `CREATE VIRTUAL TABLE ${this.knn} USING vec0(scope text partition key, embedding float[${dimensions}] distance_metric=cosine)`,
        );
      this.vec = prepareKnn(db, this.knn);
      if (created) this.rebuild();
    } else if (search === 'sqlite-vec' && this.hasKnnTable()) {
      this.vec = prepareKnn(db, this.knn);
    }
  }

  /** The memories without a vector after row `afterId`, oldest first, at most `limit`. */
  unembedded(afterId: number, limit: number): UnembeddedMemory[] {
    return this.sql.unembedded.all(afterId, limit);
  }

  /**
   * Stores the vectors (of length 1) of memories read by {@link unembedded}, in one transaction;
   * a memory deleted or replaced since it was read is left alone.
   */
  write(memories: readonly UnembeddedMemory[], vectors: readonly Float32Array[]): void {
    this.db
      .transaction(() => {
        let wrote = false;
        memories.forEach(({ id, content }, i) => {
          const vector = vectors[i]!;
          const row = this.sql.setVector.get(toBlob(vector), id, content);
          if (!row) return;
          wrote = true;
          if (!this.vec) return;
          // A KNN row of a deleted memory whose id SQLite gave again (left by a writer without the extension).
          this.vec.remove.run(BigInt(id));
          this.vec.insert.run(BigInt(id), scopeToken(row.app_name, row.user_id), vector);
        });
        // Without the extension, a KNN table in the file (of a process with it) now misses these.
        if (wrote && !this.vec && this.hasKnnTable()) this.sql.markStale.run();
      })
      .immediate();
  }

  /** Removes the KNN rows of a session's memories; call inside the transaction that deletes them. */
  forgetSession(appName: string, userId: string, sessionId: string): void {
    if (!this.vec) {
      // A KNN table of a process with the extension would keep rows of these memories.
      if (this.hasKnnTable()) this.sql.markStale.run();
      return;
    }
    for (const { id } of this.sql.sessionIds.all(appName, userId, sessionId)) this.vec.remove.run(BigInt(id));
  }

  /** The user's `k` memories nearest `query` (of length 1), nearest first; only those related to it at all (cosine > 0). */
  nearest(appName: string, userId: string, query: Float32Array, k: number): VectorHit[] {
    if (this.vec && this.sql.stale.get()?.index_stale !== 1) return this.nearestByKnn(appName, userId, query, k);
    if (this.vec && !this.readonlyDb()) {
      this.rebuild();
      return this.nearestByKnn(appName, userId, query, k);
    }
    return this.nearestExactly(appName, userId, query, k);
  }

  private nearestByKnn(appName: string, userId: string, query: Float32Array, k: number): VectorHit[] {
    const candidates = this.vec!.nearest.all(query, Math.min(k, MAX_KNN), scopeToken(appName, userId));
    const hits: VectorHit[] = [];
    for (const { rowid } of candidates) {
      const row = this.sql.vectorOf.get(rowid);
      if (!row || row.vector === null || row.app_name !== appName || row.user_id !== userId) continue;
      const score = dotProduct(query, fromBlob(row.vector));
      if (score > 0) hits.push({ id: rowid, score });
    }
    return hits.sort((a, b) => b.score - a.score || b.id - a.id);
  }

  private nearestExactly(appName: string, userId: string, query: Float32Array, k: number): VectorHit[] {
    // The best k so far, kept sorted (k is small): one pass over the user's vectors, no array of them all.
    const best: VectorHit[] = [];
    for (const [id, blob] of this.sql.userVectors.iterate(appName, userId) as IterableIterator<[number, Buffer]>) {
      const score = dotProduct(query, fromBlob(blob));
      // A memory sharing nothing with the query (cosine 0) is not near it, however few memories there are.
      if (score <= 0 || (best.length === k && score <= best[k - 1]!.score)) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.score < score) at--;
      best.splice(at, 0, { id, score });
      if (best.length > k) best.pop();
    }
    return best;
  }

  /** Fills the KNN table again from the stored vectors. */
  private rebuild(): void {
    const vec = this.vec!;
    this.db
      .transaction(() => {
        vec.clear.run();
        // Page by page: better-sqlite3 cannot write while a statement of the connection is still reading.
        for (
          let after = 0, page = this.sql.allVectors.all(after);
          page.length > 0;
          page = this.sql.allVectors.all(after)
        ) {
          for (const row of page) {
            if (row.vector.byteLength === this.dimensions * 4)
              vec.insert.run(BigInt(row.id), scopeToken(row.app_name, row.user_id), fromBlob(row.vector));
          }
          after = page.at(-1)!.id;
        }
        this.sql.markFresh.run();
      })
      .immediate();
  }

  private hasKnnTable(): boolean {
    return this.db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(this.knn) !== undefined;
  }

  private readonlyDb(): boolean {
    return this.db.readonly;
  }
}

function prepare(db: Database.Database) {
  return {
    unembedded: db.prepare<[number, number], UnembeddedMemory>(
      'SELECT id, content FROM memories WHERE vector IS NULL AND id > ? ORDER BY id LIMIT ?',
    ),
    setVector: db.prepare<[Buffer, number, string], { app_name: string; user_id: string }>(
      'UPDATE memories SET vector = ? WHERE id = ? AND vector IS NULL AND content = ? RETURNING app_name, user_id',
    ),
    sessionIds: db.prepare<[string, string, string], { id: number }>(
      'SELECT id FROM memories WHERE app_name = ? AND user_id = ? AND session_id = ? AND vector IS NOT NULL',
    ),
    vectorOf: db.prepare<[number], { app_name: string; user_id: string; vector: Buffer | null }>(
      'SELECT app_name, user_id, vector FROM memories WHERE id = ?',
    ),
    userVectors: db
      .prepare<[string, string]>(
        'SELECT id, vector FROM memories WHERE app_name = ? AND user_id = ? AND vector IS NOT NULL',
      )
      .raw(),
    allVectors: db.prepare<[number], { id: number; app_name: string; user_id: string; vector: Buffer }>(
      'SELECT id, app_name, user_id, vector FROM memories WHERE vector IS NOT NULL AND id > ? ORDER BY id LIMIT 1000',
    ),
    stale: db.prepare<[], { index_stale: number }>('SELECT index_stale FROM memory_embedding WHERE id = 1'),
    markStale: db.prepare('UPDATE memory_embedding SET index_stale = 1 WHERE id = 1'),
    markFresh: db.prepare('UPDATE memory_embedding SET index_stale = 0 WHERE id = 1'),
  };
}

function prepareKnn(db: Database.Database, table: string) {
  return {
    insert: db.prepare<[bigint, string, Float32Array]>(
      `INSERT INTO ${table} (rowid, scope, embedding) VALUES (?, ?, ?)`,
    ),
    remove: db.prepare<[bigint]>(`DELETE FROM ${table} WHERE rowid = ?`),
    clear: db.prepare(`DELETE FROM ${table}`),
    nearest: db.prepare<[Float32Array, number, string], { rowid: number }>(
      `SELECT rowid FROM ${table} WHERE embedding MATCH ? AND k = ? AND scope = ?`,
    ),
  };
}
