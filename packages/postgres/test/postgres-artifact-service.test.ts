import { afterAll, beforeAll, expect, it } from 'vitest';
import { artifactServiceContract } from '@troupe/core/testing/contracts';
import { PostgresArtifactService, PostgresSessionService, SCHEMA_VERSION } from '../src/index.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresArtifactService on a real server', () => {
  // One schema for the whole file: the contract makes fresh app names per test, so tests never meet.
  const schema = uniqueSchema('artifacts');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  artifactServiceContract(
    'PostgresArtifactService',
    async (options) => {
      const service = new PostgresArtifactService({ connectionString: PG_URL, schema, ...options });
      return { service, close: () => service.close() };
    },
    {
      // A second pool over the same schema, as a second process would have.
      openSecond: async () => {
        const service = new PostgresArtifactService({ connectionString: PG_URL, schema });
        return { service, close: () => service.close() };
      },
    },
  );

  it('shares a schema with PostgresSessionService without touching its schema version', async () => {
    const shared = uniqueSchema('artifacts_shared');
    try {
      // The artifact store first, then the session store: both create what they need.
      const artifacts = new PostgresArtifactService({ connectionString: PG_URL, schema: shared });
      await artifacts.saveArtifact({
        appName: 'app',
        userId: 'u',
        sessionId: 's',
        filename: 'a.txt',
        artifact: { text: 'x' },
      });
      const sessions = new PostgresSessionService({ connectionString: PG_URL, schema: shared });
      await sessions.createSession({ appName: 'app', userId: 'u', sessionId: 's' });
      const tables = await adminQuery<{ tablename: string }>(
        'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
        [shared],
      );
      expect(tables.map((t) => t.tablename)).toEqual(
        expect.arrayContaining(['artifacts', 'sessions', 'schema_version']),
      );
      const [version] = await adminQuery<{ version: number }>(
        `SELECT MAX(version) AS version FROM "${shared}".schema_version`,
      );
      expect(version!.version).toBe(SCHEMA_VERSION);
      expect(await artifacts.loadArtifact({ appName: 'app', userId: 'u', sessionId: 's', filename: 'a.txt' })).toEqual({
        text: 'x',
      });
      await artifacts.close();
      await sessions.close();
    } finally {
      await dropSchema(shared);
    }
  });

  it('names PostgresArtifactService in option errors and fails after close', async () => {
    expect(() => new PostgresArtifactService({ connectionString: '' })).toThrow(
      /PostgresArtifactService option 'connectionString' must be a non-empty string/,
    );
    const service = new PostgresArtifactService({ connectionString: PG_URL, schema });
    await service.close();
    await expect(service.listArtifactKeys({ appName: 'a', userId: 'u', sessionId: 's' })).rejects.toThrow(
      /PostgresArtifactService for schema .* is closed/,
    );
  });
});
