import type pg from 'pg';
import type { EmbeddingModel } from '@troupe/core';
import { checkStoredVectors, embedTexts, unitVector } from '@troupe/core/stores';

import { prepareVectorColumns, writeStoredEmbedding, type StoredEmbedding } from './memory-vector-columns.js';
import {
  clearVectors,
  nearest,
  unembedded,
  writeVectors,
  type RankedRow,
  type UnembeddedMemory,
} from './memory-queries.js';

/** How many memories one pass of embedding reads at a time. */
const EMBED_PAGE = 256;

/**
 * The semantic side of a PostgreSQL memory store: the embedder, the model the table's vectors come
 * from (another length is refused until a re-index), and how vectors are searched (pgvector, or
 * exactly in SQL). Set up in the transaction that creates the memories table.
 */
export class MemoryVectors {
  private search_: 'pgvector' | 'exact' | undefined;
  private stored: StoredEmbedding | undefined;

  constructor(
    readonly embedder: EmbeddingModel,
    private readonly table: string,
    private readonly schema: string,
    private readonly usePgvector: boolean,
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {}

  /** How vectors are searched; undefined until the table is ready. */
  get search(): 'pgvector' | 'exact' | undefined {
    return this.search_;
  }

  /** Adds the vector columns (see `prepareVectorColumns`); tells `onWarning` once when pgvector was asked for and is missing. */
  async prepare(client: pg.ClientBase): Promise<void> {
    const first = this.search_ === undefined;
    const columns = await prepareVectorColumns(client, this.table, this.embedder, this.usePgvector);
    this.search_ = columns.search;
    this.stored = columns.stored;
    if (first && columns.failure !== undefined)
      this.onWarning?.(
        `PostgresMemoryService (schema '${this.schema}'): pgvector is not available (CREATE EXTENSION vector: ${columns.failure}), so vector search is computed exactly in SQL over real[] columns (slower with many memories per user). Install pgvector on the server, or pass vectorExtension: false to choose exact search and silence this.`,
      );
  }

  /** Throws the ConfigurationError of a table holding vectors the embedder's cannot be compared with (see `reindex()`). */
  assertUsable(): void {
    checkStoredVectors(`PostgresMemoryService (schema '${this.schema}')`, this.stored, this.embedder);
  }

  /** Embeds the memories without a vector, page by page; rejects on the first failure (what was written stays). Answers how many. */
  async embedPending(pool: pg.Pool): Promise<number> {
    this.assertUsable();
    let after: UnembeddedMemory | undefined;
    let count = 0;
    for (;;) {
      const page = await unembedded(pool, this.table, after, EMBED_PAGE);
      if (page.length === 0) return count;
      after = page.at(-1);
      const vectors = await embedTexts(
        this.embedder,
        page.map(({ content }) => storedText(content)),
      );
      await writeVectors(pool, this.table, page, vectors.map(unitVector), this.search_ === 'pgvector');
      count += page.length;
    }
  }

  /** The user's `k` memories nearest the meaning of `query`, nearest first. */
  async nearest(pool: pg.Pool, appName: string, userId: string, query: string, k: number): Promise<RankedRow[]> {
    this.assertUsable();
    const [vector] = await embedTexts(this.embedder, [query]);
    return nearest(pool, this.table, appName, userId, unitVector(vector!), k, this.search_ === 'pgvector');
  }

  /** Drops every vector and records the embedder as the table's model (in the caller's transaction). */
  async reset(client: pg.ClientBase): Promise<void> {
    await clearVectors(client, this.table);
    this.stored = { modelId: this.embedder.modelId, dimensions: this.embedder.dimensions };
    await writeStoredEmbedding(client, this.table, this.stored);
  }
}

/** The text an embedder is given for a stored memory: its text parts, one per line (as `SessionMemory.text`). */
function storedText(content: string): string {
  const parsed = JSON.parse(content) as { parts: { text?: string; thought?: boolean }[] };
  return parsed.parts
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text)
    .join('\n');
}
