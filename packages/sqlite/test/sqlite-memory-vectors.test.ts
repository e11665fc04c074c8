import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createEvent, type Session } from '@troupe/core';
import { FakeEmbedder } from '@troupe/core/testing';
import { semanticMemoryContract } from '@troupe/core/testing/contracts';
import { SqliteMemoryService } from '../src/index.js';
import { openOnFreshFile, withTempFile } from './helpers.js';

// The contract in both modes: sqlite-vec's KNN table, and exact search over the stored BLOBs.
for (const vectorExtension of [true, false]) {
  semanticMemoryContract(
    `SqliteMemoryService (${vectorExtension ? 'sqlite-vec' : 'exact'})`,
    ({ embedder, onError }) =>
      openOnFreshFile(
        'troupe-sqlite-vectors-',
        'memory.db',
        (path) => new SqliteMemoryService({ path, embedder, vectorExtension, ...(onError ? { onError } : {}) }),
      ),
    {
      reopen: async ({ path }, { embedder }) => {
        const service = new SqliteMemoryService({ path, embedder, vectorExtension });
        return { service, close: () => service.close() };
      },
    },
  );
}

const APP = 'assistant';
const LISBON = 'My favourite city is Lisbon.';
const QUESTION = 'Which town do I like?';

function said(texts: string[], userId = 'alice', id = 's1'): Session {
  return {
    id,
    appName: APP,
    userId,
    state: {},
    events: texts.map((text) => createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })),
    lastUpdateTime: 0,
    version: texts.length,
  };
}

const texts = (memories: { content: { parts: unknown[] } }[]) =>
  memories.map((m) => (m.content.parts[0] as { text: string }).text);

describe('SqliteMemoryService vectors', () => {
  it('says which vector search it uses: sqlite-vec by default, exact when turned off, none without an embedder', async () => {
    await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
      const services = [
        new SqliteMemoryService({ path, embedder: new FakeEmbedder() }),
        new SqliteMemoryService({ path, embedder: new FakeEmbedder(), vectorExtension: false }),
        new SqliteMemoryService({ path }),
      ];
      expect(services.map((service) => service.vectorSearch)).toEqual(['sqlite-vec', 'exact', 'none']);
      for (const service of services) await service.close();
    });
  });

  for (const vectorExtension of [true, false])
    it(`a new process finds the stored vectors without embedding them again (${vectorExtension ? 'sqlite-vec' : 'exact'})`, async () => {
      await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
        const first = new SqliteMemoryService({ path, embedder: new FakeEmbedder(), vectorExtension });
        await first.addSessionToMemory(said([LISBON, 'I own a red kayak.']));
        await first.close();

        const embedder = new FakeEmbedder();
        const reopened = new SqliteMemoryService({ path, embedder, vectorExtension });
        const { memories } = await reopened.searchMemory({
          appName: APP,
          userId: 'alice',
          query: QUESTION,
          mode: 'vector',
        });
        expect(texts(memories)).toEqual([LISBON]);
        expect(embedder.embedded).toEqual([QUESTION]);
        await reopened.close();

        // The check of the stored model holds in the new process too.
        const other = new SqliteMemoryService({
          path,
          embedder: new FakeEmbedder({ dimensions: 48 }),
          vectorExtension,
        });
        await expect(other.addSessionToMemory(said(['More.'], 'alice', 's2'))).rejects.toThrow(
          /64 dimensions.*48 dimensions.*reindex\(\)/s,
        );
        await other.close();
      });
    });

  it('falls back to exact search when sqlite-vec cannot load, and says so once', async () => {
    await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
      const warnings: string[] = [];
      const memory = new SqliteMemoryService({
        path,
        embedder: new FakeEmbedder(),
        vectorExtension: `${path}-no-such-extension.so`,
        onWarning: (message) => warnings.push(message),
      });
      expect(memory.vectorSearch).toBe('exact');
      await memory.addSessionToMemory(said([LISBON]));
      await memory.addSessionToMemory(said([LISBON, 'Tea, please.']));
      const { memories } = await memory.searchMemory({ appName: APP, userId: 'alice', query: QUESTION });
      expect(texts(memories)[0]).toBe(LISBON);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/sqlite-vec extension could not be loaded.*no-such-extension.*exact/s);
      await memory.close();
      // vectorExtension: false is a choice, not a failure: nothing to say.
      const chosen = new SqliteMemoryService({
        path,
        embedder: new FakeEmbedder(),
        vectorExtension: false,
        onWarning: (message) => warnings.push(message),
      });
      expect(warnings).toHaveLength(1);
      await chosen.close();
    });
  });

  it('a file from before vectors gains them; what a service without sqlite-vec writes, one with it finds', async () => {
    await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
      const plain = new SqliteMemoryService({ path });
      await plain.addSessionToMemory(said([LISBON], 'alice', 'old'));
      await plain.close();
      const raw = new Database(path);
      expect(raw.prepare("SELECT 1 FROM pragma_table_info('memories') WHERE name = 'vector'").get()).toBeUndefined();
      raw.close();

      const knn = new SqliteMemoryService({ path, embedder: new FakeEmbedder() });
      const exact = new SqliteMemoryService({ path, embedder: new FakeEmbedder(), vectorExtension: false });
      // The exact service embeds the older memory with its own new one; the KNN service finds both.
      await exact.addSessionToMemory(said(['I like the town of Porto too.'], 'alice', 'new'));
      const { memories } = await knn.searchMemory({ appName: APP, userId: 'alice', query: QUESTION, mode: 'vector' });
      expect(texts(memories).sort()).toEqual(['I like the town of Porto too.', LISBON]);
      // A session the exact service replaces is gone from the KNN service's results too.
      await exact.addSessionToMemory(said(['My car is red.'], 'alice', 'new'));
      const after = await knn.searchMemory({ appName: APP, userId: 'alice', query: QUESTION, mode: 'vector' });
      expect(texts(after.memories)).toEqual([LISBON]);
      await knn.addSessionToMemory(said(['I prefer a quiet village.'], 'alice', 'newest'));
      const latest = await knn.searchMemory({ appName: APP, userId: 'alice', query: QUESTION, mode: 'vector' });
      expect(texts(latest.memories).sort()).toEqual(['I prefer a quiet village.', LISBON]);
      await exact.close();
      await knn.close();
    });
  });

  it('a read-only service searches the vectors another wrote', async () => {
    await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
      const writer = new SqliteMemoryService({ path, embedder: new FakeEmbedder() });
      await writer.addSessionToMemory(said([LISBON, 'My car is red.']));
      const reader = new SqliteMemoryService({ path, embedder: new FakeEmbedder(), readonly: true });
      const { memories } = await reader.searchMemory({
        appName: APP,
        userId: 'alice',
        query: QUESTION,
        mode: 'vector',
      });
      expect(texts(memories)).toEqual([LISBON]);
      await reader.close();
      await writer.close();

      const plain = join(path, '..', 'plain.db');
      await new SqliteMemoryService({ path: plain }).close();
      expect(() => new SqliteMemoryService({ path: plain, embedder: new FakeEmbedder(), readonly: true })).toThrow(
        /no memory vectors yet.*without readonly/,
      );
    });
  });

  it('rejects bad vector options with a ConfigurationError naming them', async () => {
    await withTempFile('troupe-sqlite-vectors-', 'memory.db', async (path) => {
      expect(() => new SqliteMemoryService({ path, vectorExtension: 3 as unknown as boolean })).toThrow(
        /'vectorExtension'/,
      );
      expect(() => new SqliteMemoryService({ path, embedder: {} as FakeEmbedder })).toThrow(/'embedder'/);
      expect(() => new SqliteMemoryService({ path, onWarning: 'warn' as unknown as () => void })).toThrow(
        /'onWarning'/,
      );
      const memory = new SqliteMemoryService({ path });
      await expect(memory.searchMemory({ appName: APP, userId: 'alice', query: 'x', mode: 'vector' })).rejects.toThrow(
        ConfigurationError,
      );
      await expect(memory.reindex()).rejects.toThrow(/needs an embedder/);
      await memory.close();
    });
  });
});
