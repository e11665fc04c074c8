import type Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';

/**
 * How a SQLite memory store searches by meaning: `'sqlite-vec'` with the sqlite-vec extension's
 * KNN index (a `vec0` table), `'exact'` by comparing the query with every stored vector of the user
 * (no extension needed; slower on many memories), `'none'` without an embedder.
 */
export type SqliteVectorSearch = 'sqlite-vec' | 'exact' | 'none';

/** What loading the extension gave: the search it allows, and why it fell back when it did. */
export interface VectorExtensionLoad {
  search: 'sqlite-vec' | 'exact';
  /** Why sqlite-vec could not be loaded; undefined when it loaded or was turned off on purpose. */
  failure?: string;
}

/**
 * Loads sqlite-vec into `db`: from the binary the `sqlite-vec` package installed for this platform,
 * or from `from` when it is a path to the loadable file; `false` does not try (exact search).
 */
export function loadVectorExtension(db: Database.Database, from: boolean | string): VectorExtensionLoad {
  if (from === false) return { search: 'exact' };
  try {
    if (typeof from === 'string') db.loadExtension(from);
    else sqliteVec.load(db);
    return { search: 'sqlite-vec' };
  } catch (error) {
    return { search: 'exact', failure: error instanceof Error ? error.message : String(error) };
  }
}
