/**
 * The contract of memory search by meaning (SPEC §19): every `MemoryService` given an `embedder`
 * passes it, beside {@link memoryServiceContract}. The stores are built with a {@link FakeEmbedder}
 * (related words near), so the cases are exact.
 *
 * @example
 * semanticMemoryContract('SqliteMemoryService', async ({ embedder, onError }) => {
 *   const path = join(await mkdtemp(join(tmpdir(), 'troupe-')), 'memory.db');
 *   const service = new SqliteMemoryService({ path, embedder, onError });
 *   return { service, path, close: () => service.close() };
 * }, {
 *   reopen: async ({ path }, { embedder }) => {
 *     const service = new SqliteMemoryService({ path, embedder });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createEvent,
  EmbeddingError,
  type EmbeddingModel,
  type MemoryEntry,
  type MemorySearchMode,
  type MemoryService,
  type Session,
} from '../../index.js';
import { FakeEmbedder } from '../fake-embedder.js';
import type { MemoryServiceFixture } from './memory-service.contract.js';

/** A memory service that can re-embed what it stores (after a switch of embedding model). */
export interface ReindexableMemoryService extends MemoryService {
  reindex(): Promise<{ memories: number }>;
}

/** What a semantic memory service is built with. */
export interface SemanticMemorySetup {
  embedder: EmbeddingModel;
  /** The service's `onError` option, when the case gives one. */
  onError?: (error: unknown) => void;
}

/** Options of {@link semanticMemoryContract}. */
export interface SemanticMemoryContractOptions<F extends MemoryServiceFixture> {
  /**
   * Opens the same storage again with another embedder (as a new process would after a switch of
   * model): for stores whose vectors outlive the service.
   */
  reopen?: (
    first: F,
    setup: SemanticMemorySetup,
  ) => Promise<MemoryServiceFixture & { service: ReindexableMemoryService }>;
}

const ALICE = 'alice';
const BOB = 'bob';
const LISBON = 'My favourite city is Lisbon.';
// None shares a word with the question, so keyword search finds none of them either.
const DISTRACTORS = ['My dog is called Rex.', 'My car is red.', 'Work starts at night.'];
const QUESTION = 'Which town do I like?';

/** Registers the semantic memory contract for one implementation. */
export function semanticMemoryContract<F extends MemoryServiceFixture & { service: ReindexableMemoryService }>(
  name: string,
  factory: (setup: SemanticMemorySetup) => Promise<F>,
  options: SemanticMemoryContractOptions<F> = {},
): void {
  describe(`Semantic memory contract: ${name}`, () => {
    const closers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closers.splice(0).reverse()) await close();
    });
    // Fresh app names per test: a shared PostgreSQL database keeps what other tests stored.
    const app = () => `semantic-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    let clock = 1_700_000_000_000;
    const session = (appName: string, id: string, texts: string[], userId = ALICE): Session => ({
      id,
      appName,
      userId,
      state: {},
      events: texts.map((text) =>
        createEvent({ author: 'user', timestamp: clock++, content: { role: 'user', parts: [{ text }] } }),
      ),
      lastUpdateTime: clock,
      version: texts.length,
    });
    const open = async (setup: SemanticMemorySetup) => {
      const fixture = await factory(setup);
      if (fixture.close) closers.push(fixture.close);
      return fixture;
    };
    const texts = (memories: MemoryEntry[]): string[] =>
      memories.map((m) => m.content.parts.map((p) => ('text' in p ? p.text : '')).join(' '));
    const search = async (
      service: MemoryService,
      appName: string,
      query: string,
      mode?: MemorySearchMode,
      userId = ALICE,
    ) => texts((await service.searchMemory({ appName, userId, query, ...(mode ? { mode } : {}) })).memories);

    it('recalls "my favourite city is Lisbon" for "which town do I like?" by vector and hybrid search, not by keywords', async () => {
      const { service } = await open({ embedder: new FakeEmbedder() });
      const APP = app();
      await service.addSessionToMemory(session(APP, 's1', [...DISTRACTORS, LISBON]));

      expect((await search(service, APP, QUESTION, 'vector'))[0]).toBe(LISBON);
      expect((await search(service, APP, QUESTION, 'hybrid'))[0]).toBe(LISBON);
      expect((await search(service, APP, QUESTION))[0]).toBe(LISBON);
      expect(await search(service, APP, QUESTION, 'keyword')).toEqual([]);
      // Words still count in hybrid search.
      expect((await search(service, APP, 'dog', 'hybrid'))[0]).toBe('My dog is called Rex.');
      // A memory sharing only a common word ("I") with the question does not outrank the nearest in meaning.
      await service.addSessionToMemory(session(APP, 's2', ['I own a red kayak.']));
      expect((await search(service, APP, QUESTION, 'hybrid'))[0]).toBe(LISBON);
    });

    it("never recalls another user's memories, in any mode", async () => {
      const { service } = await open({ embedder: new FakeEmbedder() });
      const APP = app();
      await service.addSessionToMemory(session(APP, 's1', [LISBON], ALICE));
      await service.addSessionToMemory(session(APP, 's1', ['My dog is called Rex.'], BOB));
      for (const mode of ['vector', 'hybrid', 'keyword'] as const) {
        expect(await search(service, APP, QUESTION, mode, BOB)).not.toContain(LISBON);
        expect(await search(service, APP, 'Lisbon city town', mode, BOB)).toEqual([]);
      }
      expect(await search(service, app(), QUESTION, 'vector')).toEqual([]);
    });

    it('returns at most `limit` memories, nearest first', async () => {
      const { service } = await open({ embedder: new FakeEmbedder() });
      const APP = app();
      await service.addSessionToMemory(
        session(APP, 's1', [LISBON, 'I like the town of Porto.', 'I love Paris, a lovely city.', ...DISTRACTORS]),
      );
      const found = texts(
        (await service.searchMemory({ appName: APP, userId: ALICE, query: QUESTION, mode: 'vector', limit: 2 }))
          .memories,
      );
      expect(found).toHaveLength(2);
      expect(found).not.toContain('My car is red.');
    });

    it('embeds only the memories of new turns at each add of a growing session', async () => {
      const embedder = new FakeEmbedder();
      const { service } = await open({ embedder });
      const APP = app();
      const turns = ['Hello there.', LISBON];
      const first = session(APP, 's1', turns);
      await service.addSessionToMemory(first);
      expect(embedder.embedded).toEqual(turns);
      // The same session one turn later (the runner adds it after every turn).
      const next = createEvent({
        author: 'user',
        timestamp: clock++,
        content: { role: 'user', parts: [{ text: 'My car is red.' }] },
      });
      const grown: Session = { ...first, events: [...first.events, next], version: first.version + 1 };
      await service.addSessionToMemory(grown);
      expect(embedder.embedded).toEqual([...turns, 'My car is red.']);
    });

    it('adding a session again replaces its memories: a removed turn is not recalled by meaning', async () => {
      const { service } = await open({ embedder: new FakeEmbedder() });
      const APP = app();
      await service.addSessionToMemory(session(APP, 's1', [LISBON]));
      await service.addSessionToMemory(session(APP, 's1', ['My car is red.']));
      expect(await search(service, APP, QUESTION, 'vector')).not.toContain(LISBON);
      expect(await search(service, APP, 'vehicle', 'vector')).toEqual(['My car is red.']);
    });

    it('a provider failure during an add keeps the text (found by words), is told to onError, and the next add embeds it', async () => {
      const embedder = new FakeEmbedder();
      const errors: unknown[] = [];
      const { service } = await open({ embedder, onError: (error) => errors.push(error) });
      const APP = app();
      embedder.failNext(1);
      await service.addSessionToMemory(session(APP, 's1', [LISBON]));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(EmbeddingError);
      expect(String(errors[0])).toMatch(/unavailable/);
      expect(await search(service, APP, 'Lisbon', 'keyword')).toEqual([LISBON]);
      expect(await search(service, APP, QUESTION, 'vector')).toEqual([]);

      await service.addSessionToMemory(session(APP, 's2', ['My car is red.']));
      expect(errors).toHaveLength(1);
      expect((await search(service, APP, QUESTION, 'vector'))[0]).toBe(LISBON);
    });

    it('without onError a provider failure rejects the add with an EmbeddingError, after its text is stored', async () => {
      const embedder = new FakeEmbedder();
      const { service } = await open({ embedder });
      const APP = app();
      embedder.failNext(1);
      const failed = service.addSessionToMemory(session(APP, 's1', [LISBON]));
      await expect(failed).rejects.toThrow(EmbeddingError);
      await expect(failed).rejects.toThrow(/unavailable/);
      expect(await search(service, APP, 'Lisbon', 'keyword')).toEqual([LISBON]);
    });

    if (options.reopen) {
      const reopen = options.reopen;
      it('a switch to an embedder of another size is refused, naming both sizes and reindex(); reindex() makes search work again', async () => {
        const first = await open({ embedder: new FakeEmbedder({ dimensions: 64 }) });
        const APP = app();
        await first.service.addSessionToMemory(session(APP, 's1', [...DISTRACTORS, LISBON]));
        const switched = await reopen(first, { embedder: new FakeEmbedder({ dimensions: 96 }) });
        if (switched.close) closers.push(switched.close);

        const refused = switched.service.searchMemory({ appName: APP, userId: ALICE, query: QUESTION, mode: 'vector' });
        await expect(refused).rejects.toThrow(ConfigurationError);
        await expect(
          switched.service.searchMemory({ appName: APP, userId: ALICE, query: QUESTION, mode: 'vector' }),
        ).rejects.toThrow(/64 dimensions.*96 dimensions.*reindex\(\)/s);

        expect(await switched.service.reindex()).toEqual({ memories: 4 });
        expect((await search(switched.service, APP, QUESTION, 'vector'))[0]).toBe(LISBON);
      });
    }
  });
}
