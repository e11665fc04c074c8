import type pg from 'pg';
import { ConfigurationError } from '@troupe/core';
import type { ResolvedOptions } from './options.js';
import { servicePool } from './pool.js';
import { quoteIdentifier } from './schema.js';
import { inTransaction } from './transaction.js';

/**
 * A table of its own beside the session store's, in the same schema (the artifacts and memories
 * tables): the pool the service opens or is given, the schema and table created once on first use
 * (again after a failure), and closing. The table is not part of the session schema's versions.
 */
export class SideTable {
  /** The PostgreSQL schema holding the table. */
  readonly schema: string;
  /** The table's qualified, quoted name. */
  readonly name: string;
  readonly pool: pg.Pool;
  private readonly release: () => Promise<void>;
  private ready: Promise<void> | undefined;
  private closed = false;

  constructor(
    resolved: ResolvedOptions,
    private readonly service: string,
    private readonly table: string,
    /** Creates the table (and its indexes) if missing, in the transaction that holds the schema's lock. */
    private readonly create: (client: pg.PoolClient, name: string) => Promise<void>,
  ) {
    this.schema = resolved.schema;
    this.name = `${quoteIdentifier(resolved.schema)}.${table}`;
    ({ pool: this.pool, release: this.release } = servicePool(resolved));
  }

  /** Throws once the service is closed. */
  assertOpen(): void {
    if (this.closed) {
      throw new ConfigurationError(
        `The ${this.service} for schema '${this.schema}' is closed. Create a new ${this.service} to use the database again.`,
      );
    }
  }

  /** Resolves once the table exists (created by the first call). */
  ensureReady(): Promise<void> {
    this.assertOpen();
    this.ready ??= this.createTable().catch((error: unknown) => {
      // Let the next call try again: the server may have been down.
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** Closes the pool the service opened (a pool passed in stays open). Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private async createTable(): Promise<void> {
    await inTransaction(
      this.pool,
      async (client) => {
        // The session store's lock on the schema: services starting together (of any kind) create it once.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`troupe-session-schema:${this.schema}`]);
        // CREATE SCHEMA needs the CREATE privilege even when the schema exists, so look first.
        const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
        if (existing.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(this.schema)}`);
        await this.create(client, this.name);
      },
      {
        action: `preparing the ${this.table} table in schema '${this.schema}'`,
        ifCommitLost: 'The next call checks the table again.',
      },
    );
  }
}
