import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, type Session } from '@troupe/core';
import { memoryServiceContract } from '@troupe/core/testing/contracts';
import { PostgresMemoryService, PostgresSessionService } from '../src/index.js';
import { PG_URL, adminQuery, describePostgres, dropSchema, requirePostgres, uniqueSchema } from './pg-test-env.js';

describePostgres('PostgresMemoryService on a real server', () => {
  // One schema for the whole file: the contract makes fresh app names per test, so tests never meet.
  const schema = uniqueSchema('memory');
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  const open = async () => {
    const service = new PostgresMemoryService({ connectionString: PG_URL, schema });
    return { service, close: () => service.close() };
  };
  memoryServiceContract('PostgresMemoryService', open, { openSecond: open, incremental: true });

  const session = (id: string, texts: string[], userId = 'u1'): Session => ({
    id,
    appName: 'pg-memory-app',
    userId,
    state: {},
    events: texts.map((text) => createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })),
    lastUpdateTime: 0,
    version: texts.length,
  });

  describe('PostgresMemoryService', () => {
    it('keeps its memories table with a GIN index in the session store schema, beside the session tables', async () => {
      const sessions = new PostgresSessionService({ connectionString: PG_URL, schema });
      const memory = new PostgresMemoryService({ connectionString: PG_URL, schema });
      try {
        await sessions.listSessions({ appName: 'pg-memory-app', userId: 'u1' });
        await memory.addSessionToMemory(session('s1', ['The spare key is under the blue pot.']));
        expect(
          (await memory.searchMemory({ appName: 'pg-memory-app', userId: 'u1', query: 'key' })).memories,
        ).toHaveLength(1);
        const indexes = await adminQuery<{ indexdef: string }>(
          'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2',
          [schema, 'memories'],
        );
        expect(indexes.some((row) => /USING gin \(words\)/.test(row.indexdef))).toBe(true);
        const tables = await adminQuery<{ tablename: string }>(
          'SELECT tablename FROM pg_tables WHERE schemaname = $1',
          [schema],
        );
        expect(tables.map((row) => row.tablename)).toEqual(
          expect.arrayContaining(['sessions', 'events', 'memories', 'schema_version']),
        );
      } finally {
        await memory.close();
        await sessions.close();
      }
    });

    it('adds a turn in one statement after its own last add; after another writer it reads the truth first', async () => {
      const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
      let statements = 0;
      pool.on('connect', (client) => {
        const clientQuery = client.query.bind(client);
        client.query = ((...args: unknown[]) => {
          statements++;
          return (clientQuery as (...a: unknown[]) => unknown)(...args);
        }) as typeof client.query;
      });
      const a = new PostgresMemoryService({ pool, schema });
      const b = new PostgresMemoryService({ connectionString: PG_URL, schema });
      const texts = ['The otter eats clams.', 'The otter sleeps in kelp.', 'The otter has a den.', 'The otter swims.'];
      const grown = session('one-statement', texts, 'otters');
      const prefix = (n: number) => ({ ...grown, events: grown.events.slice(0, n) });
      const otters = async () =>
        (await a.searchMemory({ appName: 'pg-memory-app', userId: 'otters', query: 'otter' })).memories.length;
      try {
        await a.searchMemory({ appName: 'pg-memory-app', userId: 'otters', query: 'warm-up' });
        statements = 0;
        await a.addSessionToMemory(prefix(1));
        expect(statements).toBe(1);
        statements = 0;
        await a.addSessionToMemory(prefix(2));
        expect(statements).toBe(1);
        // Another service adds the third turn: a's next add finds the progress moved and locks.
        await b.addSessionToMemory(prefix(3));
        statements = 0;
        await a.addSessionToMemory(grown);
        expect(statements).toBeGreaterThan(1);
        expect(await otters()).toBe(4);
        // Adding the same session again writes nothing new.
        await a.addSessionToMemory(grown);
        expect(await otters()).toBe(4);
      } finally {
        await a.close();
        await b.close();
        await pool.end();
      }
    });

    it('two services adding the same session at once leave one copy of its memories', async () => {
      const a = new PostgresMemoryService({ connectionString: PG_URL, schema });
      const b = new PostgresMemoryService({ connectionString: PG_URL, schema });
      try {
        await Promise.all([
          a.addSessionToMemory(session('race', ['The heron nests by the lake.'], 'racer')),
          b.addSessionToMemory(session('race', ['The heron nests by the lake.'], 'racer')),
        ]);
        expect(
          (await a.searchMemory({ appName: 'pg-memory-app', userId: 'racer', query: 'heron' })).memories,
        ).toHaveLength(1);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("after an older Troupe replaced a session's memories without recording progress, the next add indexes it whole", async () => {
      const memory = new PostgresMemoryService({ connectionString: PG_URL, schema });
      const texts = ['The kayak is green.', 'The kayak is stored in the barn.', 'The kayak needs a new paddle.'];
      const grown = session('older-writer', texts, 'kayaker');
      const prefix = (n: number) => ({ ...grown, events: grown.events.slice(0, n) });
      const kayak = async () =>
        (await memory.searchMemory({ appName: 'pg-memory-app', userId: 'kayaker', query: 'kayak' })).memories;
      try {
        await memory.addSessionToMemory(prefix(1));
        // What an older version's add of the first two turns did: replace the rows, leave progress alone.
        const key = ['pg-memory-app', 'kayaker', 'older-writer'];
        await adminQuery(
          `DELETE FROM "${schema}".memories WHERE app_name = $1 AND user_id = $2 AND session_id = $3`,
          key,
        );
        await adminQuery(
          `INSERT INTO "${schema}".memories (app_name, user_id, session_id, seq, author, timestamp, content, words)
           SELECT $1, $2, $3, m.seq, 'user', 0, m.content, to_tsvector('simple', m.words)
           FROM unnest($4::int[], $5::text[], $6::text[]) AS m (seq, content, words)`,
          [
            ...key,
            [0, 1],
            texts.slice(0, 2).map((text) => JSON.stringify({ role: 'user', parts: [{ text }] })),
            texts.slice(0, 2).map((text) => text.toLowerCase().replace(/[^a-z ]/g, '')),
          ],
        );
        await memory.addSessionToMemory(grown);
        expect((await kayak()).map((m) => m.content.parts[0])).toEqual(
          expect.arrayContaining(texts.map((text) => ({ text }))),
        );
        expect(await kayak()).toHaveLength(3);
      } finally {
        await memory.close();
      }
    });

    it('uses a pool it is given and leaves it open; a text with a NUL character is stored', async () => {
      const pool = new pg.Pool({ connectionString: PG_URL });
      const memory = new PostgresMemoryService({ pool, schema, maxResults: 1 });
      try {
        await memory.addSessionToMemory(session('nul', ['before\u0000after walrus', 'a second walrus']));
        const { memories } = await memory.searchMemory({ appName: 'pg-memory-app', userId: 'u1', query: 'walrus' });
        expect(memories).toHaveLength(1);
        await memory.close();
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    });

    it('rejects bad options with a ConfigurationError naming PostgresMemoryService', () => {
      expect(() => new PostgresMemoryService({ connectionString: '' })).toThrow(
        /PostgresMemoryService option 'connectionString'/,
      );
      expect(() => new PostgresMemoryService({ connectionString: PG_URL, maxResults: 0 })).toThrow(
        /PostgresMemoryService option 'maxResults'/,
      );
    });
  });
});
