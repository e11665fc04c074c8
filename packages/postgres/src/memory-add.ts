import type pg from 'pg';
import type { Session } from '@troupe/core';
import { memoryWords, planMemoryUpdate, type MemoryProgress, type MemoryUpdate } from '@troupe/core/stores';

/** How many sessions' indexing progress a service remembers (the most recently added). */
const REMEMBERED = 10_000;

/**
 * What this service last wrote as a session's indexing progress: with it, the next add of that
 * session is one statement (append the new turns if the progress is still that), instead of a
 * transaction that locks, reads the progress, writes and commits (six round trips).
 */
export class KnownProgress {
  private readonly bySession = new Map<string, MemoryProgress>();

  get(key: readonly string[]): MemoryProgress | undefined {
    return this.bySession.get(JSON.stringify(key));
  }

  set(key: readonly string[], progress: MemoryProgress): void {
    const id = JSON.stringify(key);
    this.bySession.delete(id);
    this.bySession.set(id, progress);
    if (this.bySession.size > REMEMBERED) this.bySession.delete(this.bySession.keys().next().value!);
  }
}

/** The columns of the memories a plan adds, numbered on from `firstSeq`. */
export function memoryColumns(update: MemoryUpdate): unknown[] {
  const { memories, progress } = update;
  const firstSeq = progress.memoryCount - memories.length;
  return [
    memories.map((_, i) => firstSeq + i),
    memories.map(({ entry }) => entry.author ?? null),
    memories.map(({ entry }) => entry.timestamp ?? null),
    memories.map(({ entry }) => JSON.stringify(entry.content)),
    memories.map(({ text }) => memoryWords(text).join(' ')),
  ];
}

/**
 * Adds the session's new memories in one statement, provided the stored progress is what this
 * service expects: `known` (it wrote that last), or none at all for a session seen the first time
 * (then nothing of it may be stored yet). The check and the writes are one statement, so a
 * concurrent add either finds the progress changed (nothing written) or waits for this one.
 * Resolves the progress written, or undefined when the expectation did not hold (or the plan
 * replaces memories): the caller then takes the locked transaction, which reads the truth.
 */
export async function addIfUnchanged(
  pool: pg.Pool,
  table: string,
  key: readonly string[],
  session: Session,
  known: MemoryProgress | undefined,
): Promise<MemoryProgress | undefined> {
  const update = planMemoryUpdate(session, known);
  // A replace after known progress (a rewind) deletes and rewrites: the locked path does that.
  if (known !== undefined && update.kind !== 'append') return undefined;
  const { progress } = update;
  const next = [progress.eventCount, progress.lastEventId ?? null, progress.memoryCount];
  const insertMemories = `INSERT INTO ${table} (app_name, user_id, session_id, seq, author, timestamp, content, words)
       SELECT $1, $2, $3, m.seq, m.author, m.timestamp, m.content, to_tsvector('simple', m.words)
       FROM unnest($4::int[], $5::text[], $6::float8[], $7::text[], $8::text[]) AS m (seq, author, timestamp, content, words)
       WHERE EXISTS (SELECT 1 FROM progress)`;
  const { rows } =
    known === undefined
      ? // First sight: the progress row is created only if there is none and no memory of the session is stored.
        await pool.query<{ written: number }>(
          `WITH progress AS (
             INSERT INTO ${table}_progress (app_name, user_id, session_id, event_count, last_event_id, memory_count)
             SELECT $1, $2, $3, $9, $10, $11
             WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE app_name = $1 AND user_id = $2 AND session_id = $3)
             ON CONFLICT (app_name, user_id, session_id) DO NOTHING RETURNING 1),
           added AS (${insertMemories})
           SELECT count(*)::int AS written FROM progress`,
          [...key, ...memoryColumns(update), ...next],
        )
      : // Known: the progress moves from what this service wrote, and the stored memories are as many as it says.
        await pool.query<{ written: number }>(
          `WITH progress AS (
             UPDATE ${table}_progress p SET event_count = $9, last_event_id = $10, memory_count = $11
             WHERE p.app_name = $1 AND p.user_id = $2 AND p.session_id = $3
               AND p.event_count = $12 AND p.last_event_id IS NOT DISTINCT FROM $13 AND p.memory_count = $14
               AND $14 = (SELECT COALESCE(MAX(m.seq) + 1, 0) FROM ${table} m
                          WHERE m.app_name = $1 AND m.user_id = $2 AND m.session_id = $3)
             RETURNING 1),
           added AS (${insertMemories})
           SELECT count(*)::int AS written FROM progress`,
          [...key, ...memoryColumns(update), ...next, known.eventCount, known.lastEventId ?? null, known.memoryCount],
        );
  return rows[0]?.written === 1 ? progress : undefined;
}
