import type pg from 'pg';
import type { Content, MemoryEntry, SearchMemoryParams } from '@troupe/core';

/** A memory waiting for its vector: its key, and its stored content (JSON), which the write checks again. */
export interface UnembeddedMemory {
  app_name: string;
  user_id: string;
  session_id: string;
  seq: number;
  content: string;
}

/** A stored memory as searches return it, with its key (for merging two rankings). */
export interface RankedRow {
  session_id: string;
  seq: number;
  author: string | null;
  timestamp: number | null;
  content: string;
}

/** The memories without a vector after `after` (by key), at most `limit`, in key order (the partial index's). */
export async function unembedded(
  db: pg.Pool | pg.ClientBase,
  table: string,
  after: UnembeddedMemory | undefined,
  limit: number,
): Promise<UnembeddedMemory[]> {
  const from = after ? [after.app_name, after.user_id, after.session_id, after.seq] : ['', '', '', -1];
  const { rows } = await db.query<UnembeddedMemory>(
    `SELECT app_name, user_id, session_id, seq, content FROM ${table}
     WHERE embedding IS NULL AND (app_name, user_id, session_id, seq) > ($1, $2, $3, $4)
     ORDER BY app_name, user_id, session_id, seq LIMIT $5`,
    [...from, limit],
  );
  return rows;
}

/**
 * Stores the vectors (of length 1) of memories read by {@link unembedded} in one statement; a
 * memory deleted or replaced since (its key reused by a later add) is left alone, since its content
 * differs or it has a vector already.
 */
export async function writeVectors(
  db: pg.Pool | pg.ClientBase,
  table: string,
  memories: readonly UnembeddedMemory[],
  vectors: readonly Float32Array[],
  pgvector: boolean,
): Promise<void> {
  await db.query(
    `UPDATE ${table} m SET embedding = v.embedding::${pgvector ? 'vector' : 'real[]'}
     FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
       AS v (app_name, user_id, session_id, seq, content, embedding)
     WHERE m.app_name = v.app_name AND m.user_id = v.user_id AND m.session_id = v.session_id
       AND m.seq = v.seq AND m.embedding IS NULL AND m.content = v.content`,
    [
      memories.map((m) => m.app_name),
      memories.map((m) => m.user_id),
      memories.map((m) => m.session_id),
      memories.map((m) => m.seq),
      memories.map((m) => m.content),
      vectors.map((vector) => vectorLiteral(vector, pgvector)),
    ],
  );
}

/**
 * The user's `k` memories nearest `query` (of length 1), nearest first: pgvector's cosine distance
 * `<=>`, or, exactly, the dot product of the stored unit vectors with the query (their cosine)
 * computed in SQL, one user's rows at a time (the primary key's prefix).
 */
export async function nearest(
  db: pg.Pool | pg.ClientBase,
  table: string,
  appName: string,
  userId: string,
  query: Float32Array,
  k: number,
  pgvector: boolean,
): Promise<RankedRow[]> {
  // Cosine similarity: 1 - pgvector's cosine distance, or the dot product of the unit vectors.
  const score = pgvector
    ? `1 - (m.embedding <=> $3::vector)`
    : `(SELECT sum(a * b) FROM unnest(m.embedding::real[], $3::real[]) AS t (a, b))`;
  // A memory sharing nothing with the query (cosine 0) is not near it, however few memories there are.
  const { rows } = await db.query<RankedRow>(
    `SELECT session_id, seq, author, timestamp, content FROM (
       SELECT m.session_id, m.seq, m.author, m.timestamp, m.content, ${score} AS score FROM ${table} m
       WHERE m.app_name = $1 AND m.user_id = $2 AND m.embedding IS NOT NULL
     ) scored WHERE score > 0
     ORDER BY score DESC, timestamp DESC NULLS LAST, session_id, seq LIMIT $4`,
    [appName, userId, vectorLiteral(query, pgvector), k],
  );
  return rows;
}

/** Forgets every vector (for a re-index). */
export async function clearVectors(db: pg.Pool | pg.ClientBase, table: string): Promise<void> {
  await db.query(`UPDATE ${table} SET embedding = NULL WHERE embedding IS NOT NULL`);
}

/** A vector as pgvector's text form `[a,b]` or an array literal `{a,b}`. */
function vectorLiteral(vector: Float32Array, pgvector: boolean): string {
  const numbers = Array.from(vector, (x) => (Number.isFinite(x) ? String(x) : '0')).join(',');
  return pgvector ? `[${numbers}]` : `{${numbers}}`;
}

/** The user's memories sharing a word with the query, by `ts_rank`. */
export async function keywordRows(
  pool: pg.Pool,
  table: string,
  params: SearchMemoryParams,
  words: string[],
  limit: number,
): Promise<RankedRow[]> {
  // Words hold only letters, digits and marks; quoted as lexemes besides, they cannot be tsquery syntax.
  const query = words.map((word) => `'${word}'`).join(' | ');
  const { rows } = await pool.query<RankedRow>(
    `SELECT session_id, seq, author, timestamp, content FROM ${table}, to_tsquery('simple', $3) AS query
     WHERE app_name = $1 AND user_id = $2 AND words @@ query
     ORDER BY ts_rank(words, query) DESC, timestamp DESC NULLS LAST, session_id, seq LIMIT $4`,
    [params.appName, params.userId, query, limit],
  );
  return rows;
}

/** A row as the entry a search returns. */
export function toEntry(row: RankedRow): MemoryEntry {
  const entry: MemoryEntry = { content: JSON.parse(row.content) as Content };
  if (row.author !== null) entry.author = row.author;
  if (row.timestamp !== null) entry.timestamp = row.timestamp;
  return entry;
}
