import type Database from 'better-sqlite3';
import { ConfigurationError, type EmbeddingModel } from '@troupe/core';
import { checkStoredVectors, embedTexts, unitVector } from '@troupe/core/stores';

import { storedText } from './memory-tables.js';
import { MemoryVectorIndex, type UnembeddedMemory } from './memory-vector-index.js';
import {
  hasVectorColumns,
  knnTableName,
  readStoredEmbedding,
  writeStoredEmbedding,
  type StoredEmbedding,
} from './memory-vector-schema.js';
import { loadVectorExtension } from './vector-extension.js';

/** What {@link MemoryVectors} needs besides the file and the embedder. */
export interface MemoryVectorsOptions {
  path: string;
  vectorExtension: boolean | string;
  onWarning: ((message: string) => void) | undefined;
}

/**
 * The semantic side of a SQLite memory store: the embedder, the model the file's vectors come from
 * (checked against the embedder: another length is refused until a re-index), and the index of
 * the vectors. Opening loads sqlite-vec, or tells `onWarning` once why it could not.
 */
export class MemoryVectors {
  /** How vectors are searched here. */
  readonly search: 'sqlite-vec' | 'exact';
  private current: MemoryVectorIndex | undefined;
  private stored: StoredEmbedding | undefined;

  constructor(
    private readonly db: Database.Database,
    readonly embedder: EmbeddingModel,
    private readonly options: MemoryVectorsOptions,
  ) {
    if (!hasVectorColumns(db))
      throw new ConfigurationError(
        `The SQLite file '${options.path}' has no memory vectors yet, and SqliteMemoryService was opened with readonly: true and an embedder. Open it once without readonly (with the embedder) to add them.`,
      );
    const load = loadVectorExtension(db, options.vectorExtension);
    this.search = load.search;
    if (load.failure !== undefined)
      options.onWarning?.(
        `SqliteMemoryService '${options.path}': the sqlite-vec extension could not be loaded (${load.failure}), so vector search compares the query with every stored vector of the user (exact, slower with many memories). Install the sqlite-vec package's binary for this platform, or pass vectorExtension: false to choose exact search and silence this.`,
      );
    this.stored = readStoredEmbedding(db);
    if (this.stored === undefined && !db.readonly) {
      this.stored = { modelId: embedder.modelId, dimensions: embedder.dimensions };
      writeStoredEmbedding(db, this.stored);
    }
    if (this.stored !== undefined && matches(this.stored, embedder)) this.current = this.openIndex();
  }

  /** The index of the vectors; throws the ConfigurationError of a file holding vectors of another model. */
  get index(): MemoryVectorIndex {
    this.assertUsable();
    return this.current!;
  }

  /** Throws when the file holds vectors the embedder's cannot be compared with (see `reindex()`). */
  assertUsable(): void {
    if (this.current) return;
    checkStoredVectors(`SqliteMemoryService at '${this.options.path}'`, this.stored, this.embedder);
    // A read-only file never given an embedder has no vectors to compare.
    throw new ConfigurationError(
      `The SQLite file '${this.options.path}' holds no memory vectors, and SqliteMemoryService was opened with readonly: true. Open it once without readonly, with the embedder, to embed its memories.`,
    );
  }

  /** The vectors (of length 1) of memories read from the file. */
  async embed(memories: readonly UnembeddedMemory[]): Promise<Float32Array[]> {
    const texts = memories.map(({ content }) => storedText(content));
    const vectors = await embedTexts(this.embedder, texts);
    return vectors.map(unitVector);
  }

  /** Row ids of the user's `k` memories nearest `query`'s meaning, nearest first. */
  async nearestIds(appName: string, userId: string, query: string, k: number): Promise<number[]> {
    const index = this.index;
    const [vector] = await embedTexts(this.embedder, [query]);
    return index.nearest(appName, userId, unitVector(vector!), k).map((hit) => hit.id);
  }

  /** Drops every vector and records the embedder as the file's model: every memory is then to be embedded. */
  reset(): void {
    this.db
      .transaction(() => {
        const old = this.stored?.dimensions;
        // The old KNN table can only be dropped where the extension is loaded; elsewhere one of another length is left unused.
        if (old !== undefined && this.search === 'sqlite-vec')
          this.db.exec(`DROP TABLE IF EXISTS ${knnTableName(old)}`);
        this.db.prepare('UPDATE memories SET vector = NULL WHERE vector IS NOT NULL').run();
        this.stored = { modelId: this.embedder.modelId, dimensions: this.embedder.dimensions };
        writeStoredEmbedding(this.db, this.stored);
        this.current = this.openIndex();
      })
      .immediate();
  }

  private openIndex(): MemoryVectorIndex {
    return new MemoryVectorIndex(this.db, this.search, this.embedder.dimensions, this.db.readonly);
  }
}

/** Whether vectors of `stored` compare with the embedder's: the same length, and the same model when both name one. */
function matches(stored: StoredEmbedding, embedder: EmbeddingModel): boolean {
  if (stored.dimensions !== embedder.dimensions) return false;
  return stored.modelId === undefined || embedder.modelId === undefined || stored.modelId === embedder.modelId;
}
