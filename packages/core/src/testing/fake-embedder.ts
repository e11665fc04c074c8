import type { EmbeddingModel, EmbedOptions } from '../memory/embedding-model.js';

/**
 * Everyday words that mean nearly the same, one group per line: the fake embedder puts the words of
 * a group on one dimension, so "town" is near "city" and "like" near "favourite".
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ['city', 'town', 'place', 'village', 'capital'],
  ['like', 'likes', 'liked', 'favourite', 'favorite', 'love', 'loves', 'prefer', 'enjoy', 'fond'],
  ['food', 'eat', 'dish', 'meal', 'cuisine', 'dinner', 'lunch'],
  ['dog', 'puppy', 'pet', 'cat', 'kitten'],
  ['car', 'vehicle', 'automobile', 'drive'],
  ['job', 'work', 'career', 'profession', 'employer', 'office'],
  ['home', 'house', 'live', 'lives', 'apartment', 'flat'],
  ['travel', 'trip', 'holiday', 'vacation', 'journey', 'visit', 'flight'],
  ['colour', 'color', 'red', 'blue', 'green', 'yellow'],
  ['book', 'novel', 'read', 'reading', 'author'],
  ['music', 'song', 'band', 'listen', 'concert'],
  ['film', 'movie', 'cinema', 'watch'],
  ['sport', 'football', 'soccer', 'tennis', 'run', 'running', 'gym'],
  ['child', 'children', 'kid', 'kids', 'son', 'daughter'],
  ['partner', 'wife', 'husband', 'spouse'],
  ['birthday', 'born', 'age', 'old'],
  ['allergy', 'allergic', 'intolerant'],
  ['drink', 'coffee', 'tea', 'beverage'],
  ['language', 'speak', 'speaks', 'spanish', 'french', 'german', 'portuguese'],
  ['money', 'budget', 'price', 'cost', 'expensive', 'cheap'],
  ['doctor', 'health', 'medicine', 'ill', 'sick'],
  ['weather', 'rain', 'sunny', 'cold', 'warm'],
  ['name', 'called', 'call'],
  ['meeting', 'appointment', 'schedule', 'calendar'],
  ['email', 'mail', 'message', 'inbox'],
  ['phone', 'mobile', 'number'],
  ['school', 'university', 'study', 'class'],
  ['friend', 'friends', 'buddy', 'colleague'],
  ['hate', 'dislike', 'avoid'],
  ['vegetarian', 'vegan', 'meat'],
];

/** Words that carry no meaning for a memory: left out of every vector. */
const STOP_WORDS = new Set(
  'a an the is are was were be been am i me my mine you your we our they their he she it its of to in on at for and or but with what which who whom where when how do does did have has had this that these those there here please tell about remember'.split(
    ' ',
  ),
);

/** Options of {@link FakeEmbedder}. */
export interface FakeEmbedderOptions {
  /** The length of every vector; at least the number of synonym groups + 8. @default 64 */
  dimensions?: number;
  /** More groups of words to treat as one meaning, e.g. `[['lisbon', 'lisboa']]`. */
  groups?: readonly (readonly string[])[];
  /** Reported as `modelId`, so stores notice a switch between two fakes. @default `fake-<dimensions>` */
  modelId?: string;
}

/**
 * A deterministic embedding model for tests: no network, the same vector for the same text in
 * every process. How it makes related words near: each text is cut into lowercase words (stop
 * words left out, a plural `s` dropped); every word of a built-in synonym group (city/town/place,
 * like/favourite/love/prefer, food/eat/meal, dog/pet, job/work, home/house/live, ... about 30
 * groups, plus `groups`) adds 1 to its group's dimension, and any other word adds 1 to a
 * dimension picked by its hash among the rest. So "My favourite city is Lisbon" and "Which town do I
 * like?" share two dimensions (a cosine near 0.6), while "I have a dog" shares none with the second.
 * Unrelated words may share a hashed dimension by chance, as real embeddings are never exact.
 *
 * It counts its work (`calls`, `texts`, and `embedded` holds every text) so tests can check that
 * only new memories are embedded, and `failNext(n)` makes the next `n` calls reject like a
 * provider outage.
 *
 * @example
 * const memoryService = new InMemoryMemoryService({ embedder: new FakeEmbedder() });
 */
export class FakeEmbedder implements EmbeddingModel {
  readonly dimensions: number;
  readonly modelId: string;
  /** Calls of `embed` so far (failed ones included). */
  calls = 0;
  /** Texts embedded so far. */
  texts = 0;
  /** Every text embedded, in order. */
  readonly embedded: string[] = [];
  private readonly groups = new Map<string, number>();
  /** The dimensions given to synonym groups; the rest take other words by hash. */
  private readonly groupCount: number;
  private failures: { count: number; error: Error } = { count: 0, error: new Error('unused') };

  constructor(options: FakeEmbedderOptions = {}) {
    const groups = [...SYNONYMS, ...(options.groups ?? [])];
    this.dimensions = options.dimensions ?? 64;
    if (!Number.isInteger(this.dimensions) || this.dimensions < groups.length + 8) {
      throw new RangeError(
        `FakeEmbedder option 'dimensions' must be a whole number ≥ ${groups.length + 8} (one per synonym group, plus room for other words); got ${String(options.dimensions)}.`,
      );
    }
    this.modelId = options.modelId ?? `fake-${this.dimensions}`;
    this.groupCount = groups.length;
    groups.forEach((group, index) => {
      for (const word of group) this.groups.set(stem(word.toLowerCase()), index);
    });
  }

  /**
   * Makes the next `count` calls of `embed` reject, as a provider outage or quota would; the
   * error is `error`, or one saying the fake provider is down.
   */
  failNext(
    count = 1,
    error: Error = new Error('FakeEmbedder: the embedding provider is unavailable (failNext).'),
  ): void {
    this.failures = { count, error };
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<number[][]> {
    this.calls++;
    options.signal?.throwIfAborted();
    if (this.failures.count > 0) {
      this.failures.count--;
      throw this.failures.error;
    }
    this.texts += texts.length;
    this.embedded.push(...texts);
    return texts.map((text) => this.vectorOf(text));
  }

  private vectorOf(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const hashed = this.dimensions - this.groupCount;
    for (const match of text
      .normalize('NFC')
      .toLowerCase()
      .matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = stem(match[0]);
      if (STOP_WORDS.has(match[0]) || word === '') continue;
      const group = this.groups.get(word);
      vector[group ?? this.groupCount + (fnv1a(word) % hashed)]! += 1;
    }
    return vector;
  }
}

/** A word without a plural `s` (`cities` is left alone; `towns` → `town`). */
function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/** The 32-bit FNV-1a hash of a word: the same in every process. */
function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
