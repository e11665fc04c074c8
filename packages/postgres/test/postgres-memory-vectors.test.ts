import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEvent, type Session } from '@troupe/core';
import { FakeEmbedder } from '@troupe/core/testing';
import { semanticMemoryContract } from '@troupe/core/testing/contracts';
import { PostgresMemoryService } from '../src/index.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

/**
 * Whether the server offers pgvector. Then the contract also runs with it (Debian 12's PostgreSQL has
 * none, so here only the exact path runs; docs/persistence.md says how to run both against a
 * pgvector image).
 */
async function pgvectorAvailable(): Promise<boolean> {
  if (PG_URL === '') return false;
  const rows = await adminQuery("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").catch(() => []);
  return rows.length > 0;
}
const WITH_PGVECTOR = await pgvectorAvailable();

const LISBON = 'My favourite city is Lisbon.';
const QUESTION = 'Which town do I like?';
const said = (appName: string, texts: string[], id = 's1'): Session => ({
  id,
  appName,
  userId: 'alice',
  state: {},
  events: texts.map((text) => createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })),
  lastUpdateTime: 0,
  version: texts.length,
});
const texts = (memories: { content: { parts: unknown[] } }[]) =>
  memories.map((m) => (m.content.parts[0] as { text: string }).text);

for (const search of WITH_PGVECTOR ? (['pgvector', 'exact'] as const) : (['exact'] as const)) {
  const vectorExtension = search === 'pgvector';
  describePostgres(`PostgresMemoryService vectors (${search})`, () => {
    // A schema per test that stores vectors (the switch of model changes the whole table's), dropped at the end.
    const schemas: string[] = [];
    const schemaFor = () => {
      const schema = uniqueSchema(`vectors_${search}`);
      schemas.push(schema);
      return schema;
    };
    beforeAll(requirePostgres);
    afterAll(async () => {
      if (PG_URL !== '') for (const schema of schemas) await dropSchema(schema);
    });

    semanticMemoryContract(
      `PostgresMemoryService (${search})`,
      async ({ embedder, onError }) => {
        const schema = schemaFor();
        const service = new PostgresMemoryService({
          connectionString: PG_URL,
          schema,
          embedder,
          vectorExtension,
          ...(onError ? { onError } : {}),
        });
        return { service, schema, close: () => service.close() };
      },
      {
        reopen: async ({ schema }, { embedder }) => {
          const service = new PostgresMemoryService({ connectionString: PG_URL, schema, embedder, vectorExtension });
          return { service, close: () => service.close() };
        },
      },
    );

    it('a new process finds the stored vectors without embedding them again, and checks their model', async () => {
      const schema = schemaFor();
      const open = (embedder: FakeEmbedder) =>
        new PostgresMemoryService({ connectionString: PG_URL, schema, embedder, vectorExtension });
      const first = open(new FakeEmbedder());
      await first.addSessionToMemory(said('reopen', [LISBON, 'I own a red kayak.']));
      await first.close();

      const embedder = new FakeEmbedder();
      const reopened = open(embedder);
      try {
        const { memories } = await reopened.searchMemory({
          appName: 'reopen',
          userId: 'alice',
          query: QUESTION,
          mode: 'vector',
        });
        expect(texts(memories)[0]).toBe(LISBON);
        expect(embedder.embedded).toEqual([QUESTION]);
        expect(reopened.vectorSearch).toBe(search);
      } finally {
        await reopened.close();
      }
      const other = open(new FakeEmbedder({ modelId: 'another-model' }));
      try {
        await expect(other.addSessionToMemory(said('reopen', ['More.'], 's2'))).rejects.toThrow(
          /'fake-64'.*'another-model'.*reindex\(\)/s,
        );
      } finally {
        await other.close();
      }
    });
  });
}

describePostgres('PostgresMemoryService without pgvector', () => {
  beforeAll(requirePostgres);
  it.skipIf(WITH_PGVECTOR)('says once that pgvector is missing, and searches exactly in SQL', async () => {
    const schema = uniqueSchema('vectors_warn');
    const warnings: string[] = [];
    const memory = new PostgresMemoryService({
      connectionString: PG_URL,
      schema,
      embedder: new FakeEmbedder(),
      onWarning: (message) => warnings.push(message),
    });
    try {
      await memory.addSessionToMemory(said('warn', [LISBON, 'My car is red.']));
      const { memories } = await memory.searchMemory({
        appName: 'warn',
        userId: 'alice',
        query: QUESTION,
        mode: 'vector',
      });
      expect(texts(memories)).toEqual([LISBON]);
      expect(memory.vectorSearch).toBe('exact');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/pgvector is not available.*exactly in SQL/s);
      const columns = await adminQuery<{ type: string }>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding'`,
        [`"${schema}".memories`],
      );
      expect(columns).toEqual([{ type: 'real[]' }]);
    } finally {
      await memory.close();
      await dropSchema(schema);
    }
  });

  it('rejects bad vector options with a ConfigurationError naming them', () => {
    expect(
      () => new PostgresMemoryService({ connectionString: PG_URL, vectorExtension: 'yes' as unknown as boolean }),
    ).toThrow(/'vectorExtension'/);
    expect(() => new PostgresMemoryService({ connectionString: PG_URL, embedder: {} as FakeEmbedder })).toThrow(
      /'embedder'/,
    );
  });
});
