import type pg from 'pg';
import {
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
import { resolveOptions, type PostgresSessionServiceOptions } from './options.js';
import { MAYBE_DONE, asStorageError } from './pool.js';
import { SideTable } from './side-table.js';
import { inTransaction } from './transaction.js';

/** Options of {@link PostgresArtifactService}: those of `PostgresSessionService`, and `maxArtifactBytes`. */
export interface PostgresArtifactServiceOptions extends PostgresSessionServiceOptions, ArtifactStoreOptions {}

interface ArtifactRow {
  mime_type: string | null;
  data: Buffer;
}

/**
 * Artifacts (ADK's model, SPEC §15) kept in PostgreSQL, in an `artifacts` table of the `schema`
 * (the session store's schema by default; the table is created when missing and is not part of
 * the session schema's versions). Several services and processes may share it: a save takes a
 * transaction-scoped advisory lock on its file and inserts the next version, so two savers never
 * get the same version.
 *
 * @example
 * import { PostgresArtifactService } from '@troupe/postgres';
 *
 * const artifactService = new PostgresArtifactService({ connectionString: process.env.DATABASE_URL });
 * const runner = new Runner({ appName: 'app', agent, sessionService, artifactService });
 * // ...
 * await artifactService.close();
 */
export class PostgresArtifactService implements ArtifactService {
  private readonly table: SideTable;
  private readonly maxBytes: number;

  constructor(options: PostgresArtifactServiceOptions) {
    const resolved = resolveOptions(options, 'PostgresArtifactService');
    this.maxBytes = resolveMaxArtifactBytes('PostgresArtifactService', options.maxArtifactBytes);
    // user: files have session_id '' (a session's own filenames never start with 'user:').
    this.table = new SideTable(resolved, 'PostgresArtifactService', 'artifacts', async (client, name) => {
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${name} (
          app_name TEXT NOT NULL,
          user_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          filename TEXT NOT NULL,
          version INTEGER NOT NULL,
          mime_type TEXT,
          data BYTEA NOT NULL,
          created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
          PRIMARY KEY (app_name, user_id, session_id, filename, version)
        )`);
    });
  }

  /** The PostgreSQL schema holding the table. */
  get schema(): string {
    return this.table.schema;
  }

  async saveArtifact(params: SaveArtifactParams): Promise<number> {
    checkArtifactKey(params);
    const stored = artifactToBytes(params.filename, params.artifact, this.maxBytes);
    await this.table.ensureReady();
    const key = [params.appName, params.userId, sessionOf(params), params.filename];
    return inTransaction(
      this.table.pool,
      async (client) => {
        // Savers of one file take turns; other files are not blocked.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          JSON.stringify(['troupe-artifact', this.table.schema, ...key]),
        ]);
        const { rows } = await client.query<{ version: number }>(
          `INSERT INTO ${this.table.name} (app_name, user_id, session_id, filename, version, mime_type, data)
           SELECT $1, $2, $3, $4, COALESCE(MAX(version) + 1, 0), $5, $6 FROM ${this.table.name}
           WHERE app_name = $1 AND user_id = $2 AND session_id = $3 AND filename = $4
           RETURNING version`,
          [
            ...key,
            stored.mimeType ?? null,
            Buffer.from(stored.bytes.buffer, stored.bytes.byteOffset, stored.bytes.byteLength),
          ],
        );
        return rows[0]!.version;
      },
      {
        action: `saving artifact '${params.filename}'`,
        ifCommitLost: 'List its versions to see whether the new one is there before saving again.',
      },
    );
  }

  async loadArtifact(params: LoadArtifactParams): Promise<Part | undefined> {
    checkArtifactKey(params);
    checkArtifactVersion(params.filename, params.version);
    await this.table.ensureReady();
    const key = [params.appName, params.userId, sessionOf(params), params.filename];
    const where = 'app_name = $1 AND user_id = $2 AND session_id = $3 AND filename = $4';
    const { rows } = await this.query<ArtifactRow>(
      `loading artifact '${params.filename}'`,
      params.version === undefined
        ? `SELECT mime_type, data FROM ${this.table.name} WHERE ${where} ORDER BY version DESC LIMIT 1`
        : `SELECT mime_type, data FROM ${this.table.name} WHERE ${where} AND version = $5`,
      params.version === undefined ? key : [...key, params.version],
    );
    const row = rows[0];
    return row && artifactFromBytes({ mimeType: row.mime_type ?? undefined, bytes: row.data });
  }

  async listArtifactKeys(params: ListArtifactParams): Promise<string[]> {
    checkArtifactScope(params);
    await this.table.ensureReady();
    const { rows } = await this.query<{ filename: string }>(
      `listing the artifacts of session '${params.sessionId}'`,
      `SELECT DISTINCT filename FROM ${this.table.name} WHERE app_name = $1 AND user_id = $2 AND session_id IN ($3, '')`,
      [params.appName, params.userId, params.sessionId],
    );
    // Sorted here, not by SQL (whose order follows the database's collation), so every store agrees.
    return rows.map((row) => row.filename).sort();
  }

  async listVersions(params: ArtifactKey): Promise<number[]> {
    checkArtifactKey(params);
    await this.table.ensureReady();
    const { rows } = await this.query<{ version: number }>(
      `listing the versions of artifact '${params.filename}'`,
      `SELECT version FROM ${this.table.name} WHERE app_name = $1 AND user_id = $2 AND session_id = $3 AND filename = $4 ORDER BY version`,
      [params.appName, params.userId, sessionOf(params), params.filename],
    );
    return rows.map((row) => row.version);
  }

  async deleteArtifact(params: ArtifactKey): Promise<void> {
    checkArtifactKey(params);
    await this.table.ensureReady();
    await this.query(
      `deleting artifact '${params.filename}'`,
      `DELETE FROM ${this.table.name} WHERE app_name = $1 AND user_id = $2 AND session_id = $3 AND filename = $4`,
      [params.appName, params.userId, sessionOf(params), params.filename],
      MAYBE_DONE,
    );
  }

  /** Closes the pool the service opened (a pool passed in stays open). Later calls fail; closing twice is harmless. */
  close(): Promise<void> {
    return this.table.close();
  }

  private async query<R extends pg.QueryResultRow>(
    action: string,
    text: string,
    values: unknown[],
    outcome?: string,
  ): Promise<pg.QueryResult<R>> {
    try {
      return await this.table.pool.query<R>(text, values);
    } catch (error) {
      throw asStorageError(action, error, outcome);
    }
  }
}

/** The session_id column of a filename: '' for the user's shared `user:` files. */
function sessionOf(key: ArtifactKey): string {
  return isUserArtifact(key.filename) ? '' : key.sessionId;
}
