import type * as Postgres from '@troupe/postgres';
import type { ArtifactService, MemoryService, SessionService } from '@troupe/core';
import { CliUsageError } from '../errors.js';
import { createSessionStore, type SessionStore } from '../session-store.js';
import { redactUrl } from '../redact-url.js';
import type { ServeCommandOptions } from './serve-options.js';

/**
 * The session store of `troupe api`, `troupe web` and `troupe worker`: PostgreSQL with `--pg`,
 * otherwise the CLI's own choice (SQLite at `.troupe/troupe.db`, `--db`, or `--memory`).
 */
export async function openServeStore(
  options: Pick<ServeCommandOptions, 'pg' | 'db' | 'memory'>,
  cwd: string,
): Promise<SessionStore & { description: string }> {
  if (options.pg !== undefined) {
    const { service, artifacts, memories, pool } = await openPostgres(options.pg);
    const close = async () => {
      await memories.close();
      await artifacts.close();
      await service.close();
      await pool.end();
    };
    return {
      service,
      artifacts,
      memories,
      path: undefined,
      close,
      description: `PostgreSQL (${redactUrl(options.pg)})`,
    };
  }
  const store = createSessionStore({ cwd, db: options.db, memory: options.memory });
  return {
    ...store,
    description: store.path === undefined ? 'memory (gone when the server stops)' : `SQLite ${store.path}`,
  };
}

async function openPostgres(connectionString: string): Promise<{
  service: SessionService & { close(): Promise<void> };
  artifacts: ArtifactService & { close(): Promise<void> };
  memories: MemoryService & { close(): Promise<void> };
  pool: { end(): Promise<void> };
}> {
  let postgres: typeof Postgres;
  try {
    postgres = await import('@troupe/postgres');
  } catch (error) {
    throw new CliUsageError(
      `--pg needs the package @troupe/postgres, which could not be loaded (${(error as Error).message}). Install it next to @troupe/cli: npm install @troupe/postgres`,
    );
  }
  // One pool for the three stores: a process holds at most its size in connections, not three times it.
  const pool = postgres.createPostgresPool({ connectionString });
  return {
    service: new postgres.PostgresSessionService({ pool }),
    artifacts: new postgres.PostgresArtifactService({ pool }),
    memories: new postgres.PostgresMemoryService({ pool }),
    pool,
  };
}
