import type Database from 'better-sqlite3';
import {
  ConfigurationError,
  type ArtifactKey,
  type ArtifactService,
  type ListArtifactParams,
  type LoadArtifactParams,
  type Part,
  type SaveArtifactParams,
} from '@troupe/core';
import { type ArtifactStoreOptions } from '@troupe/core/stores';
import {
  artifactFromBytes,
  artifactToBytes,
  checkArtifactKey,
  checkArtifactScope,
  checkArtifactVersion,
  isUserArtifact,
  resolveMaxArtifactBytes,
} from '@troupe/core/stores';
import { resolveOptions, type SqliteSessionServiceOptions } from './options.js';
import { openSqliteFile, siteOf } from './open-database.js';
import { guarded, type StorageSite } from './storage-errors.js';

/** Options of {@link SqliteArtifactService}: the file options of `SqliteSessionService`, and `maxArtifactBytes`. */
export interface SqliteArtifactServiceOptions extends SqliteSessionServiceOptions, ArtifactStoreOptions {}

/**
 * The artifact table, created when missing. It is separate from the session schema (and its
 * version), so the artifact store can share a file with `SqliteSessionService` or have one of its
 * own. `user:` files have session_id '' (a session's own filenames never start with `user:`).
 */
const CREATE_TABLE = `
  CREATE TABLE IF NOT EXISTS artifacts (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    filename TEXT NOT NULL,
    version INTEGER NOT NULL,
    mime_type TEXT,
    data BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id, filename, version)
  ) WITHOUT ROWID
`;

interface ArtifactRow {
  mime_type: string | null;
  data: Buffer;
}

/**
 * Artifacts (ADK's model, SPEC §15) kept in an SQLite file, alone or beside the sessions of a
 * `SqliteSessionService` on the same file. Several services and processes may share the file: a
 * save reads the newest version and inserts the next one in one write transaction, so two savers
 * never get the same version.
 *
 * @example
 * import { SqliteArtifactService, SqliteSessionService } from '@troupe/sqlite';
 *
 * const sessionService = new SqliteSessionService({ path: '.troupe/troupe.db' });
 * const artifactService = new SqliteArtifactService({ path: '.troupe/troupe.db' });
 * const runner = new Runner({ appName: 'app', agent, sessionService, artifactService });
 */
export class SqliteArtifactService implements ArtifactService {
  /** The database file, as given. */
  readonly path: string;
  private readonly site: StorageSite;
  private readonly db: Database.Database;
  private readonly maxBytes: number;
  private readonly save: Database.Transaction<
    (key: ArtifactKey, sessionId: string, mimeType: string | null, data: Uint8Array) => number
  >;
  private readonly sql: ReturnType<typeof prepare>;
  private closed = false;

  /**
   * Opens (or creates) the file and its artifact table.
   * @throws ConfigurationError for an invalid option; `StorageError` when the file cannot be opened or written.
   */
  constructor(options: SqliteArtifactServiceOptions) {
    const resolved = resolveOptions(options, 'SqliteArtifactService');
    this.maxBytes = resolveMaxArtifactBytes('SqliteArtifactService', options.maxArtifactBytes);
    this.path = resolved.path;
    this.site = siteOf(resolved, 'artifact store');
    this.db = openSqliteFile(
      resolved,
      (db) => {
        // A read-only connection cannot create it; without the table there is simply nothing to read.
        if (!resolved.readonly) db.exec(CREATE_TABLE);
      },
      'artifact store',
    );
    const hasTable =
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'artifacts'").get() !== undefined;
    if (!hasTable) {
      this.db.close();
      throw new ConfigurationError(
        `The SQLite file '${resolved.path}' has no artifacts table yet, and SqliteArtifactService was opened with readonly: true. Open it once without readonly to create the table.`,
      );
    }
    this.sql = prepare(this.db);
    this.save = this.db.transaction((key, sessionId, mimeType, data) => {
      const latest = this.sql.latest.get(key.appName, key.userId, sessionId, key.filename);
      const version = latest?.version === undefined || latest.version === null ? 0 : latest.version + 1;
      this.sql.insert.run(key.appName, key.userId, sessionId, key.filename, version, mimeType, data, Date.now());
      return version;
    });
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkArtifactKey(params);
    const stored = artifactToBytes(params.filename, params.artifact, this.maxBytes);
    this.assertOpen();
    return guarded(
      this.site,
      true,
      () => `save artifact '${params.filename}'`,
      () =>
        // IMMEDIATE takes the write lock before reading the newest version: another process cannot slip in between.
        this.save.immediate(params, sessionOf(params), stored.mimeType ?? null, stored.bytes),
    );
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkArtifactKey(params);
    checkArtifactVersion(params.filename, params.version);
    this.assertOpen();
    const row = guarded(
      this.site,
      false,
      () => `load artifact '${params.filename}'`,
      () => {
        const args = [params.appName, params.userId, sessionOf(params), params.filename] as const;
        return params.version === undefined
          ? this.sql.loadLatest.get(...args)
          : this.sql.loadVersion.get(...args, params.version);
      },
    );
    return row && artifactFromBytes({ mimeType: row.mime_type ?? undefined, bytes: row.data });
  }

  async listArtifactKeys(params: ListArtifactParams): Promise<string[]> {
    checkArtifactScope(params);
    this.assertOpen();
    const rows = guarded(
      this.site,
      false,
      () => `list the artifacts of session '${params.sessionId}'`,
      () => this.sql.names.all(params.appName, params.userId, params.sessionId),
    );
    // Sorted here, not by SQL, so every store orders names the same way (UTF-16 code units).
    return rows.map((row) => row.filename).sort();
  }

  async listVersions(params: ArtifactKey): Promise<number[]> {
    checkArtifactKey(params);
    this.assertOpen();
    const rows = guarded(
      this.site,
      false,
      () => `list the versions of artifact '${params.filename}'`,
      () => this.sql.versions.all(params.appName, params.userId, sessionOf(params), params.filename),
    );
    return rows.map((row) => row.version);
  }

  async deleteArtifact(params: ArtifactKey): Promise<void> {
    checkArtifactKey(params);
    this.assertOpen();
    guarded(
      this.site,
      true,
      () => `delete artifact '${params.filename}'`,
      () => this.sql.remove.run(params.appName, params.userId, sessionOf(params), params.filename),
    );
  }

  /** Closes the file. Later calls fail; closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed)
      throw new ConfigurationError(
        `The SqliteArtifactService for '${this.path}' is closed. Create a new SqliteArtifactService to use the file again.`,
      );
  }
}

/** The session_id column of a filename: '' for the user's shared `user:` files. */
function sessionOf(key: ArtifactKey): string {
  return isUserArtifact(key.filename) ? '' : key.sessionId;
}

type Key4 = [string, string, string, string];

function prepare(db: Database.Database) {
  const where = 'app_name = ? AND user_id = ? AND session_id = ? AND filename = ?';
  return {
    latest: db.prepare<Key4, { version: number | null }>(
      `SELECT MAX(version) AS version FROM artifacts WHERE ${where}`,
    ),
    insert: db.prepare<[string, string, string, string, number, string | null, Uint8Array, number]>(
      'INSERT INTO artifacts (app_name, user_id, session_id, filename, version, mime_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    loadLatest: db.prepare<Key4, ArtifactRow>(
      `SELECT mime_type, data FROM artifacts WHERE ${where} ORDER BY version DESC LIMIT 1`,
    ),
    loadVersion: db.prepare<[...Key4, number], ArtifactRow>(
      `SELECT mime_type, data FROM artifacts WHERE ${where} AND version = ?`,
    ),
    versions: db.prepare<Key4, { version: number }>(`SELECT version FROM artifacts WHERE ${where} ORDER BY version`),
    names: db.prepare<[string, string, string], { filename: string }>(
      "SELECT DISTINCT filename FROM artifacts WHERE app_name = ? AND user_id = ? AND session_id IN (?, '')",
    ),
    remove: db.prepare<Key4>(`DELETE FROM artifacts WHERE ${where}`),
  };
}
