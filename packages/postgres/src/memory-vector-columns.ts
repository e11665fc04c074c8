import type pg from 'pg';

/** How a PostgreSQL memory store searches by meaning: with pgvector's `<=>`, or exactly in SQL over `real[]`. */
export type PostgresVectorSearch = 'pgvector' | 'exact' | 'none';

/** The model whose vectors a memories table holds. */
export interface StoredEmbedding {
  modelId: string | undefined;
  dimensions: number;
}

/** What preparing the vector columns found. */
export interface VectorColumns {
  search: 'pgvector' | 'exact';
  /** The model of the stored vectors (recorded now when none was). */
  stored: StoredEmbedding;
  /** Why pgvector is not used when it was asked for; undefined when it is, or was turned off on purpose. */
  failure?: string;
}

/**
 * Adds the vector part to a memories table (in the transaction that holds the schema's lock):
 *
 * - `embedding`: the memory's vector scaled to length 1, NULL until it is embedded. Its type is
 *   pgvector's `vector` when `CREATE EXTENSION IF NOT EXISTS vector` works (tried in a savepoint,
 *   so a server without it, or a role that may not create it, just gets the exact path), else
 *   `real[]`. A table keeps the type it was given; exact search reads either (`vector` casts to `real[]`).
 * - `<table>_unembedded`: a partial index of the memories without a vector, so each add finds the
 *   ones to embed (the new turn's, those a failed provider left, those of services without an
 *   embedder) without reading the others.
 * - `<table>_embedding`: one row naming the model of the vectors and their length.
 */
export async function prepareVectorColumns(
  client: pg.ClientBase,
  table: string,
  embedder: { modelId?: string; dimensions: number },
  usePgvector: boolean,
): Promise<VectorColumns> {
  let failure: string | undefined;
  let type = await columnType(client, table);
  if (type === undefined) {
    const pgvector = usePgvector ? await createExtension(client) : { ok: false as const, reason: undefined };
    if (!pgvector.ok) failure = pgvector.reason;
    type = pgvector.ok ? 'vector' : 'real[]';
    await client.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS embedding ${type}`);
  }
  await client.query(
    `CREATE INDEX IF NOT EXISTS ${unquoted(table)}_unembedded ON ${table} (app_name, user_id, session_id, seq) WHERE embedding IS NULL`,
  );
  await client.query(`
    CREATE TABLE IF NOT EXISTS ${table}_embedding (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      model_id TEXT,
      dimensions INTEGER NOT NULL
    )`);
  await client.query(
    `INSERT INTO ${table}_embedding (id, model_id, dimensions) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING`,
    [embedder.modelId ?? null, embedder.dimensions],
  );
  const { rows } = await client.query<{ model_id: string | null; dimensions: number }>(
    `SELECT model_id, dimensions FROM ${table}_embedding WHERE id = 1`,
  );
  const stored = { modelId: rows[0]!.model_id ?? undefined, dimensions: rows[0]!.dimensions };
  const search = type.startsWith('vector') && usePgvector ? 'pgvector' : 'exact';
  return failure === undefined || !usePgvector ? { search, stored } : { search, stored, failure };
}

/** Records the model of the table's vectors (every vector is of this model from now on). */
export async function writeStoredEmbedding(
  client: pg.ClientBase,
  table: string,
  stored: StoredEmbedding,
): Promise<void> {
  await client.query(`UPDATE ${table}_embedding SET model_id = $1, dimensions = $2 WHERE id = 1`, [
    stored.modelId ?? null,
    stored.dimensions,
  ]);
}

/** `'vector'`, `'real[]'` (or another type) of the table's `embedding` column; undefined without one. */
async function columnType(client: pg.ClientBase, table: string): Promise<string | undefined> {
  const { rows } = await client.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
     WHERE attrelid = $1::regclass AND attname = 'embedding' AND NOT attisdropped`,
    [table],
  );
  return rows[0]?.type;
}

async function createExtension(
  client: pg.ClientBase,
): Promise<{ ok: true } | { ok: false; reason: string | undefined }> {
  await client.query('SAVEPOINT troupe_pgvector');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query('RELEASE SAVEPOINT troupe_pgvector');
    return { ok: true };
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT troupe_pgvector');
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** `"schema".memories` → `memories`, for an index name (indexes live in their table's schema). */
function unquoted(table: string): string {
  return table.slice(table.lastIndexOf('.') + 1);
}
