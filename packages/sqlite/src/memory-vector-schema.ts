import type Database from 'better-sqlite3';

/**
 * The vector part of the memory tables, added to a file when a service with an embedder opens it
 * (a file made before has its `memories` table altered in place; nothing is rewritten):
 *
 * - `memories.vector`: the memory's vector as a Float32 BLOB of length 1 (see `vector-blob.ts`),
 *   NULL while it is not embedded yet. The vectors live here whatever the search, so a file moves
 *   between machines with and without sqlite-vec, and the sqlite-vec table can always be rebuilt.
 * - `memories_unembedded`: a partial index of the memories without a vector, so each add finds the
 *   ones to embed (the new turn's, and those a failed provider left) without reading the others.
 *   Memories added by a service without an embedder, or by an older Troupe, are found there too.
 * - `memory_embedding`: one row naming the model whose vectors the file holds and their length; a
 *   service with an embedder of another length refuses the file until `reindex()`. `index_stale`
 *   is set by a service that wrote vectors without sqlite-vec loaded, so one with it rebuilds its
 *   KNN table before searching.
 */
export function addVectorColumns(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(memories)').all();
  if (!columns.some((column) => column.name === 'vector')) db.exec('ALTER TABLE memories ADD COLUMN vector BLOB');
  db.exec(`
    CREATE INDEX IF NOT EXISTS memories_unembedded ON memories (id) WHERE vector IS NULL;
    CREATE TABLE IF NOT EXISTS memory_embedding (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      model_id TEXT,
      dimensions INTEGER NOT NULL,
      index_stale INTEGER NOT NULL DEFAULT 0
    );
  `);
}

/** Whether the file has the vector column (a read-only service cannot add it). */
export function hasVectorColumns(db: Database.Database): boolean {
  return (
    db.prepare("SELECT 1 FROM pragma_table_info('memories') WHERE name = 'vector'").get() !== undefined &&
    db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'memory_embedding'").get() !== undefined
  );
}

/** The model whose vectors a file holds. */
export interface StoredEmbedding {
  modelId: string | undefined;
  dimensions: number;
}

/** The model the file's vectors come from; undefined before any service with an embedder opened it. */
export function readStoredEmbedding(db: Database.Database): StoredEmbedding | undefined {
  const row = db
    .prepare<[], { model_id: string | null; dimensions: number }>(
      'SELECT model_id, dimensions FROM memory_embedding WHERE id = 1',
    )
    .get();
  return row && { modelId: row.model_id ?? undefined, dimensions: row.dimensions };
}

/** Records the model of the file's vectors (all of them are of this model from now on). */
export function writeStoredEmbedding(db: Database.Database, stored: StoredEmbedding): void {
  db.prepare<[string | null, number]>(
    `INSERT INTO memory_embedding (id, model_id, dimensions) VALUES (1, ?, ?)
     ON CONFLICT (id) DO UPDATE SET model_id = excluded.model_id, dimensions = excluded.dimensions`,
  ).run(stored.modelId ?? null, stored.dimensions);
}

/** The name of the sqlite-vec table for vectors of `dimensions` floats: one per length, so a switch never mixes them. */
export function knnTableName(dimensions: number): string {
  return `memory_vec_${dimensions}`;
}
