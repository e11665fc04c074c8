import pg from 'pg';
import { describe } from 'vitest';

/**
 * The PostgreSQL the tests use: `TROUPE_TEST_PG_URL`, e.g. postgres://postgres@127.0.0.1:5432/test.
 * Unset, the suites are skipped on a developer's machine; in CI (CI=true) they run and fail in
 * `requirePostgres`, because a CI run that skipped them would prove nothing.
 */
export const PG_URL = process.env.TROUPE_TEST_PG_URL ?? '';
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/** True outside CI when no database is configured: PostgreSQL suites are skipped then. */
export const SKIP_POSTGRES = PG_URL === '' && !IN_CI;

/** `describe` for PostgreSQL suites: skipped only outside CI when no database is configured. */
export const describePostgres = describe.skipIf(SKIP_POSTGRES);

/** Call in `beforeAll`: throws, with how to fix it, when the database is not configured or not reachable. */
export async function requirePostgres(): Promise<void> {
  if (PG_URL === '') {
    throw new Error(
      'TROUPE_TEST_PG_URL is not set, and CI=true requires the PostgreSQL tests to run. Set it to a database the tests may create schemas in, e.g. TROUPE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test (.ci/run does this).',
    );
  }
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL at TROUPE_TEST_PG_URL (${redact(PG_URL)}) is not reachable: ${error instanceof Error ? error.message : String(error)}. Start the server (pg_isready -h 127.0.0.1 -p 5432 tells), or point TROUPE_TEST_PG_URL at one that runs.`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A schema name no other test run uses. */
export function uniqueSchema(label: string): string {
  return `troupe_test_${label}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Runs SQL on the test database through a connection of its own. */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
