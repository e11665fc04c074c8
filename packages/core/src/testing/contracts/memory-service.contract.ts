/**
 * The contract every {@link MemoryService} implementation passes (SPEC §15): the in-memory store in
 * core, and the SQLite (FTS5) and PostgreSQL (full-text search) stores. One suite, as
 * `session-service.contract.ts` is for session stores.
 *
 * @example
 * // packages/sqlite/test/sqlite-memory-service.test.ts
 * memoryServiceContract('SqliteMemoryService', async () => {
 *   const path = join(await mkdtemp(join(tmpdir(), 'troupe-')), 'memory.db');
 *   const service = new SqliteMemoryService({ path });
 *   return { service, path, close: () => service.close() };
 * }, {
 *   openSecond: async ({ path }) => {
 *     const service = new SqliteMemoryService({ path });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createEvent,
  type Content,
  type EventInit,
  type MemoryEntry,
  type MemoryService,
  type Session,
} from '../../index.js';

/** A service under test and how to dispose of it. Extra fields (a file path, a URL) reach `openSecond`. */
export interface MemoryServiceFixture {
  service: MemoryService;
  /** Closes connections and removes the storage. Called after every test. */
  close?: () => Promise<void>;
}

/** Options of {@link memoryServiceContract}. */
export interface MemoryServiceContractOptions<F extends MemoryServiceFixture> {
  /** Opens a second service over the same storage as `first` (as a second process would). */
  openSecond?: (first: F) => Promise<MemoryServiceFixture>;
  /**
   * The service indexes a growing session incrementally (as Troupe's stores do, see
   * `planMemoryUpdate`): an add after a turn must not read the events the last add saw.
   */
  incremental?: boolean;
}

const ALICE = 'alice';
const BOB = 'bob';

/** Registers the MemoryService contract suite for one implementation, built with its default options. */
export function memoryServiceContract<F extends MemoryServiceFixture>(
  name: string,
  factory: () => Promise<F>,
  options: MemoryServiceContractOptions<F> = {},
): void {
  describe(`MemoryService contract: ${name}`, () => {
    let fixture: F;
    let service: MemoryService;
    // Fresh app names per test, so stores whose storage outlives a test (a shared PostgreSQL database) see nothing of other tests.
    let APP: string;
    let OTHER_APP: string;
    const extraClosers: (() => Promise<void>)[] = [];

    beforeEach(async () => {
      const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      APP = `memory-app-${run}`;
      OTHER_APP = `memory-other-app-${run}`;
      fixture = await factory();
      service = fixture.service;
    });

    afterEach(async () => {
      for (const close of extraClosers.splice(0).reverse()) await close();
      await fixture.close?.();
    });

    let clock = 1_700_000_000_000;
    const user = (text: string, init: EventInit = {}) =>
      createEvent({ author: 'user', timestamp: clock++, content: { role: 'user', parts: [{ text }] }, ...init });
    const agent = (content: Content | string, init: EventInit = {}) =>
      createEvent({
        author: 'assistant',
        timestamp: clock++,
        content: typeof content === 'string' ? { role: 'model', parts: [{ text: content }] } : content,
        ...init,
      });
    const session = (id: string, events: Session['events'], userId = ALICE, appName = APP): Session => ({
      id,
      appName,
      userId,
      state: {},
      events,
      lastUpdateTime: clock,
      version: events.length,
    });
    const search = async (
      query: string,
      userId = ALICE,
      appName = APP,
      from: MemoryService = service,
    ): Promise<MemoryEntry[]> => (await from.searchMemory({ appName, userId, query })).memories;
    const texts = (memories: MemoryEntry[]): string[] =>
      memories.map((m) => m.content.parts.map((p) => ('text' in p ? p.text : '')).join(' '));

    it('finds what a session said by a word of it, whatever its case', async () => {
      await service.addSessionToMemory(
        session('s1', [
          user('My favourite city is Lisbon.'),
          agent('Noted: you love Lisbon.'),
          user('Tell me a joke.'),
          agent('Why did the chicken cross the road?'),
        ]),
      );

      expect(texts(await search('Lisbon')).sort()).toEqual(['My favourite city is Lisbon.', 'Noted: you love Lisbon.']);
      expect(texts(await search('FAVOURITE'))).toEqual(['My favourite city is Lisbon.']);
      expect(texts(await search('chicken'))).toEqual(['Why did the chicken cross the road?']);
      expect(await search('Madrid')).toEqual([]);
    });

    it('a query of several words finds entries sharing any of them, the entry sharing the most first', async () => {
      await service.addSessionToMemory(
        session('s1', [
          user('The city council meets on Mondays.'),
          user('Lisbon has many hills and trams.'),
          user('My favourite city to visit is Lisbon.'),
          user('I drink green tea every morning.'),
        ]),
      );

      const found = texts(await search('favourite city Lisbon'));
      expect(found[0]).toBe('My favourite city to visit is Lisbon.');
      expect(found.sort()).toEqual([
        'Lisbon has many hills and trams.',
        'My favourite city to visit is Lisbon.',
        'The city council meets on Mondays.',
      ]);
    });

    it('memories of several sessions of the user are all searched', async () => {
      await service.addSessionToMemory(session('s1', [user('My sister is called Ana.')]));
      await service.addSessionToMemory(session('s2', [user('Ana moved to Porto last year.')]));

      expect(texts(await search('Ana')).sort()).toEqual(['Ana moved to Porto last year.', 'My sister is called Ana.']);
    });

    it('adding a session again replaces what it added before: no duplicates, and removed text is gone', async () => {
      const first = user('I play the cello on Sundays.');
      await service.addSessionToMemory(session('s1', [first, user('My dog is named Biscuit.')]));
      await service.addSessionToMemory(session('s1', [first, user('My cat is named Pepper.')]));
      await service.addSessionToMemory(session('s1', [first, user('My cat is named Pepper.')]));

      expect(texts(await search('cello'))).toEqual(['I play the cello on Sundays.']);
      expect(await search('Biscuit')).toEqual([]);
      expect(texts(await search('Pepper'))).toEqual(['My cat is named Pepper.']);
      expect(texts(await search('named'))).toEqual(['My cat is named Pepper.']);
    });

    it('a session added after every turn keeps each turn once; a shorter or branched copy of it replaces them', async () => {
      const turns = [user('I grow tomatoes.'), agent('Tomatoes noted.'), user('I also grow basil.')];
      await service.addSessionToMemory(session('s1', turns.slice(0, 1)));
      await service.addSessionToMemory(session('s1', turns.slice(0, 2)));
      await service.addSessionToMemory(session('s1', turns.slice(0, 2)));
      await service.addSessionToMemory(session('s1', turns));
      expect(texts(await search('grow tomatoes basil noted')).sort()).toEqual([
        'I also grow basil.',
        'I grow tomatoes.',
        'Tomatoes noted.',
      ]);

      // An older copy of the session (fewer events) is what the session is now.
      await service.addSessionToMemory(session('s1', turns.slice(0, 2)));
      expect(await search('basil')).toEqual([]);
      // A copy that branched off after the first turn, then grew past the length indexed before.
      const branched = [turns[0]!, user('I grow peppers.'), agent('Peppers noted.'), user('And chili.')];
      await service.addSessionToMemory(session('s1', branched));
      expect(texts(await search('tomatoes peppers noted chili')).sort()).toEqual([
        'And chili.',
        'I grow peppers.',
        'I grow tomatoes.',
        'Peppers noted.',
      ]);
    });

    it('a rewind after an add takes back the turns it rewound', async () => {
      const kept = user('My bike is red.', { invocationId: 'i1' });
      const undone = user('My bike is yellow.', { invocationId: 'i2' });
      const answer = agent('Yellow bike noted.', { invocationId: 'i2' });
      await service.addSessionToMemory(session('s1', [kept, undone, answer]));
      expect(texts(await search('yellow'))).toHaveLength(2);

      const rewind = createEvent({
        author: 'user',
        timestamp: clock++,
        invocationId: 'i3',
        actions: { rewindBeforeInvocationId: 'i2' },
      });
      await service.addSessionToMemory(session('s1', [kept, undone, answer, rewind]));
      expect(await search('yellow')).toEqual([]);
      expect(texts(await search('bike'))).toEqual(['My bike is red.']);
    });

    if (options.incremental) {
      it('an add after a turn reads only the events since the last add', async () => {
        const events = [user('I collect stamps.'), agent('Stamps noted.')];
        await service.addSessionToMemory(session('s1', [...events]));
        events.push(user('I collect coins too.'), agent('Coins noted.'));
        // Reading an event the last add saw (but its last, which tells the copy is the same) fails the add.
        const seen = 1;
        const guarded = new Proxy(events, {
          get(target, property, receiver) {
            if (typeof property === 'string' && /^\d+$/.test(property) && Number(property) < seen)
              throw new Error(`event ${property} was read again`);
            return Reflect.get(target, property, receiver) as unknown;
          },
        });
        await service.addSessionToMemory(session('s1', guarded));
        expect(texts(await search('collect noted')).sort()).toEqual([
          'Coins noted.',
          'I collect coins too.',
          'I collect stamps.',
          'Stamps noted.',
        ]);
      });
    }

    it("a user's memories are never returned to another user, nor in another app (also for the same session id)", async () => {
      await service.addSessionToMemory(session('s1', [user('My locker code is 4417 zebra.')], ALICE));
      await service.addSessionToMemory(session('s1', [user('I prefer window seats.')], BOB));
      await service.addSessionToMemory(session('s1', [user('Another app, same zebra.')], ALICE, OTHER_APP));

      expect(texts(await search('zebra', ALICE))).toEqual(['My locker code is 4417 zebra.']);
      expect(await search('zebra', BOB)).toEqual([]);
      expect(await search('4417 locker code zebra', BOB)).toEqual([]);
      expect(texts(await search('zebra', ALICE, OTHER_APP))).toEqual(['Another app, same zebra.']);
      expect(await search('zebra', 'carol')).toEqual([]);
      // Bob's session 's1' did not replace Alice's.
      expect(texts(await search('window', BOB))).toEqual(['I prefer window seats.']);
      expect(await search('window', ALICE)).toEqual([]);
    });

    it('entries carry the content (text parts only), the author and the timestamp of their event', async () => {
      const said = user('Remember that my passport expires in March.');
      const answered = agent({
        role: 'model',
        parts: [
          { text: 'private reasoning about passport', thought: true },
          { text: 'I will remember your passport date.' },
          { functionCall: { id: 'c1', name: 'note', args: { passport: 'March' } } },
        ],
      });
      await service.addSessionToMemory(session('s1', [said, answered]));

      const memories = await search('passport');
      const mine = memories.find((m) => m.author === 'user');
      const theirs = memories.find((m) => m.author === 'assistant');
      expect(memories).toHaveLength(2);
      expect(mine).toEqual({
        content: { role: 'user', parts: [{ text: 'Remember that my passport expires in March.' }] },
        author: 'user',
        timestamp: said.timestamp,
      });
      expect(theirs).toEqual({
        content: { role: 'model', parts: [{ text: 'I will remember your passport date.' }] },
        author: 'assistant',
        timestamp: answered.timestamp,
      });
      expect(await search('reasoning')).toEqual([]);
    });

    it('leaves out streaming chunks, failures, thoughts and pure tool calls and results', async () => {
      await service.addSessionToMemory(
        session('s1', [
          user('Book the quartz hotel.'),
          agent('quartz partial chunk', { partial: true }),
          agent({
            role: 'model',
            parts: [{ functionCall: { id: 'c1', name: 'book_quartz', args: { hotel: 'quartz' } } }],
          }),
          createEvent({
            author: 'assistant',
            timestamp: clock++,
            content: {
              role: 'user',
              parts: [{ functionResponse: { id: 'c1', name: 'book_quartz', response: { quartz: 'booked' } } }],
            },
          }),
          agent('quartz failed', { errorCode: 'MODEL', errorMessage: 'quartz' }),
          agent({ role: 'model', parts: [{ text: 'thinking about quartz', thought: true }] }),
          agent('Your quartz room is booked.'),
        ]),
      );

      expect(texts(await search('quartz')).sort()).toEqual(['Book the quartz hotel.', 'Your quartz room is booked.']);
    });

    it('leaves out the turns a rewind took back', async () => {
      const kept = user('My car is blue.', { invocationId: 'i1' });
      const undone = user('My car is green.', { invocationId: 'i2' });
      const answer = agent('Green car noted.', { invocationId: 'i2' });
      const rewind = createEvent({
        author: 'user',
        timestamp: clock++,
        invocationId: 'i3',
        actions: { rewindBeforeInvocationId: 'i2' },
      });
      await service.addSessionToMemory(
        session('s1', [kept, undone, answer, rewind, user('My car is fast.', { invocationId: 'i4' })]),
      );

      expect(texts(await search('car')).sort()).toEqual(['My car is blue.', 'My car is fast.']);
      expect(await search('green')).toEqual([]);
    });

    it('a query with punctuation or search operators is read as words, never as syntax', async () => {
      await service.addSessionToMemory(
        session('s1', [user('My favourite city is Lisbon.'), user('Bar snacks are great.')]),
      );

      const queries = [
        '"Lisbon" OR bar*',
        'NEAR(',
        'NEAR(lisbon city, 2)',
        'city:',
        "'); DROP TABLE memories; --",
        'a & b | !c',
        '(((',
        '*',
        '-lisbon',
        '^',
        '\\',
        '"',
        "'",
        'lisbon AND NOT',
        '{col}: x',
        '<->',
        ':*',
      ];
      for (const query of queries) await expect(search(query), query).resolves.toBeInstanceOf(Array);
      expect(texts(await search('"Lisbon"'))).toEqual(['My favourite city is Lisbon.']);
      expect(texts(await search('lisbon*'))).toEqual(['My favourite city is Lisbon.']);
      expect(texts(await search('"Lisbon" OR bar*')).sort()).toEqual([
        'Bar snacks are great.',
        'My favourite city is Lisbon.',
      ]);
      // The store still works after them.
      expect(texts(await search('city'))).toEqual(['My favourite city is Lisbon.']);
    });

    it('finds text in other scripts and with accents, case-insensitively', async () => {
      await service.addSessionToMemory(
        session('s1', [
          user('Meine Lieblingsstadt ist München.'),
          user('Я люблю Москву зимой.'),
          user('Το αγαπημένο μου νησί είναι η Νάξος.'),
          user('I ❤️ café crème 🥐'),
        ]),
      );

      expect(texts(await search('MÜNCHEN'))).toEqual(['Meine Lieblingsstadt ist München.']);
      expect(texts(await search('москву'))).toEqual(['Я люблю Москву зимой.']);
      expect(texts(await search('νάξος'))).toEqual(['Το αγαπημένο μου νησί είναι η Νάξος.']);
      expect(texts(await search('café'))).toEqual(['I ❤️ café crème 🥐']);
    });

    it('an empty or blank query, or one of punctuation only, finds nothing', async () => {
      await service.addSessionToMemory(session('s1', [user('Anything at all.')]));

      for (const query of ['', '   ', '\n\t', '?!', '...'])
        expect(await service.searchMemory({ appName: APP, userId: ALICE, query }), JSON.stringify(query)).toEqual({
          memories: [],
        });
    });

    it('a session without text adds nothing, and adding it again removes what it added before', async () => {
      await service.addSessionToMemory(session('empty', []));
      await service.addSessionToMemory(
        session('tools-only', [
          agent({ role: 'model', parts: [{ functionCall: { id: 'c1', name: 'lookup', args: { q: 'otters' } } }] }),
        ]),
      );
      expect(await search('otters lookup')).toEqual([]);

      await service.addSessionToMemory(session('s1', [user('Sea otters hold hands.')]));
      expect(texts(await search('otters'))).toEqual(['Sea otters hold hands.']);
      await service.addSessionToMemory(session('s1', []));
      expect(await search('otters')).toEqual([]);
    });

    it('a search returns at most 10 memories by default, best first', async () => {
      const events = Array.from({ length: 14 }, (_, i) => user(`Note ${i} about kiwis.`));
      events.push(user('Kiwis, kiwis: green kiwis are my favourite kiwis.'));
      await service.addSessionToMemory(session('s1', events));

      const found = texts(await search('green kiwis'));
      expect(found).toHaveLength(10);
      expect(found[0]).toBe('Kiwis, kiwis: green kiwis are my favourite kiwis.');
    });

    it('rejects invalid parameters with a ConfigurationError naming the parameter', async () => {
      await expect(service.searchMemory({ appName: APP, userId: '', query: 'x' })).rejects.toThrow(ConfigurationError);
      await expect(service.searchMemory({ appName: APP, userId: '', query: 'x' })).rejects.toThrow(/userId/);
      await expect(
        service.searchMemory({ appName: undefined as unknown as string, userId: ALICE, query: 'x' }),
      ).rejects.toThrow(/appName/);
      await expect(
        service.searchMemory({ appName: APP, userId: ALICE, query: 42 as unknown as string }),
      ).rejects.toThrow(/'query' must be a string/);
      await expect(service.addSessionToMemory(undefined as unknown as Session)).rejects.toThrow(ConfigurationError);
      await expect(service.addSessionToMemory({ ...session('s1', []), userId: '' })).rejects.toThrow(/session\.userId/);
      await expect(
        service.addSessionToMemory({ ...session('s1', []), events: undefined as unknown as Session['events'] }),
      ).rejects.toThrow(/events/);
    });

    it("searches by words without an embedder: mode 'vector' is a ConfigurationError naming the fix, 'keyword' is the default", async () => {
      await service.addSessionToMemory(session('s1', [user('My favourite city is Lisbon.')]));
      expect(
        texts((await service.searchMemory({ appName: APP, userId: ALICE, query: 'Lisbon', mode: 'keyword' })).memories),
      ).toEqual(['My favourite city is Lisbon.']);
      await expect(
        service.searchMemory({ appName: APP, userId: ALICE, query: 'Lisbon', mode: 'vector' }),
      ).rejects.toThrow(/mode 'vector' searches by meaning, which needs an embedder/);
      await expect(service.searchMemory({ appName: APP, userId: ALICE, query: 'Lisbon', limit: 0 })).rejects.toThrow(
        /'limit' must be a whole number ≥ 1; got number 0/,
      );
    });

    if (options.openSecond) {
      const openSecond = options.openSecond;
      it('a second service over the same storage finds what the first added, and its re-adds replace them', async () => {
        const second = await openSecond(fixture);
        extraClosers.push(async () => second.close?.());
        await service.addSessionToMemory(session('s1', [user('The wifi password is heron.')]));

        expect(texts(await search('heron', ALICE, APP, second.service))).toEqual(['The wifi password is heron.']);
        await second.service.addSessionToMemory(session('s1', [user('The wifi password is egret.')]));
        expect(await search('heron')).toEqual([]);
        expect(texts(await search('egret'))).toEqual(['The wifi password is egret.']);
      });

      it('two services adding turns of one growing session in turn keep each turn once', async () => {
        const second = await openSecond(fixture);
        extraClosers.push(async () => second.close?.());
        const turns = [
          user('The boat is called Wren.'),
          user('The boat is moored at pier 4.'),
          user('The boat needs paint.'),
        ];
        await service.addSessionToMemory(session('s1', turns.slice(0, 1)));
        await second.service.addSessionToMemory(session('s1', turns.slice(0, 2)));
        await service.addSessionToMemory(session('s1', turns));
        expect(texts(await search('boat')).sort()).toEqual([
          'The boat is called Wren.',
          'The boat is moored at pier 4.',
          'The boat needs paint.',
        ]);
      });
    }
  });
}
