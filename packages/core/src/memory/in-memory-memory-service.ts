import { ConfigurationError } from '../errors.js';
import type { Session } from '../sessions/session.js';
import { embedTexts } from './embed-texts.js';
import type { EmbeddingModel } from './embedding-model.js';
import {
  checkEmbedder,
  checkListener,
  checkMemorySession,
  resolveMaxResults,
  resolveSearchMode,
  searchWords,
} from './memory-params.js';
import type { MemoryEntry, MemoryService, SearchMemoryParams, SearchMemoryResponse } from './memory-service.js';
import { planMemoryUpdate, type MemoryProgress } from './memory-progress.js';
import { memoryWords } from './memory-words.js';
import { reciprocalRankFusion } from './rank-fusion.js';
import { dotProduct, unitVector } from './vector-math.js';

/** Options of {@link InMemoryMemoryService}. */
export interface InMemoryMemoryServiceOptions {
  /** The most memories one search returns, best first (a search's `limit` overrides it). @default 10 */
  maxResults?: number;
  /**
   * Makes a vector of each memory, so searches can match by meaning (`mode: 'vector'` or
   * `'hybrid'`, the default with an embedder). Only new memories are embedded at each add.
   * @default none: keyword search only
   */
  embedder?: EmbeddingModel;
  /**
   * Told when embedding the memories of an add fails (the provider is down, a quota). The add keeps
   * their text (found by words at once) and embeds them at the next add. Without it,
   * `addSessionToMemory` rejects with the failure after storing the text.
   */
  onError?: (error: unknown) => void;
  /**
   * Keep the memories of at most this many sessions (of all users): adding one more drops the
   * memories of the session added to least recently. For a long-lived process (`troupe api
   * --memory`); a store on disk (SQLite, PostgreSQL) needs no bound.
   * @default no bound
   */
  maxSessions?: number;
}

interface StoredMemory {
  entry: MemoryEntry;
  /**
   * Its distinct words, each between spaces (` lisbon city `): one flat string per memory instead
   * of a Set of word strings (each holding on to the text it was cut from), since every session of
   * a server stays indexed.
   */
  words: string;
  /** Its text, kept until it is embedded (and for `reindex`). */
  text: string;
  /** Its unit vector; undefined until the embedder made it. */
  vector: Float32Array | undefined;
}

/** One session's memories, and how far they cover it. */
interface SessionIndex {
  progress: MemoryProgress;
  memories: StoredMemory[];
}

/** A user's sessions, and the memories still waiting for a vector (a failed embedding is retried at the next add). */
interface UserIndex {
  sessions: Map<string, SessionIndex>;
  unembedded: Set<StoredMemory>;
}

/**
 * Long-term memory kept in this process (ADK's `InMemoryMemoryService`), for tests and demos: it
 * ends with the process. Keyword search matches words: an entry is found when it shares a word with
 * the query (case-insensitive, any script; punctuation ignored). Entries sharing more of the query's
 * words, and rarer ones, come first (ties: the newer first), at most `maxResults`. With an
 * `embedder`, vector search finds the memories nearest the query by cosine similarity (exactly: every
 * memory of the user is compared), and hybrid search merges both rankings by reciprocal rank fusion.
 *
 * @example
 * const memoryService = new InMemoryMemoryService();
 * const runner = new Runner({ appName: 'assistant', agent, sessionService, memoryService });
 * await runner.run({ userId: 'u1', sessionId: 's1', newMessage: 'My favourite city is Lisbon.' });
 * await memoryService.addSessionToMemory((await sessionService.getSession({ appName: 'assistant', userId: 'u1', sessionId: 's1' }))!);
 * const { memories } = await memoryService.searchMemory({ appName: 'assistant', userId: 'u1', query: 'favourite city' });
 */
export class InMemoryMemoryService implements MemoryService {
  private readonly maxResults: number;
  private readonly embedder: EmbeddingModel | undefined;
  private readonly onError: ((error: unknown) => void) | undefined;
  /** App and user → that user's sessions and unembedded memories. */
  private readonly users = new Map<string, UserIndex>();
  private readonly maxSessions: number | undefined;
  /** With a bound: each indexed session's user and id, least recently added first. */
  private readonly addOrder = new Map<string, { user: UserIndex; userKey: string; sessionId: string }>();

  constructor(options: InMemoryMemoryServiceOptions = {}) {
    this.maxResults = resolveMaxResults(options.maxResults, 'InMemoryMemoryService');
    this.embedder = checkEmbedder(options.embedder, 'InMemoryMemoryService');
    this.onError = checkListener(options.onError, 'onError', 'InMemoryMemoryService');
    const { maxSessions } = options;
    if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions >= 1)) {
      throw new ConfigurationError(
        `InMemoryMemoryService's maxSessions is ${JSON.stringify(maxSessions)}; use a whole number of at least 1, or leave it out for no bound.`,
      );
    }
    this.maxSessions = maxSessions;
  }

  /** Marks the session as added to now and drops the least recently added beyond `maxSessions`. */
  private bound(user: UserIndex, key: string, sessionId: string): void {
    const id = `${key}\u0000${sessionId}`;
    this.addOrder.delete(id);
    this.addOrder.set(id, { user, userKey: key, sessionId });
    for (const [oldestId, oldest] of this.addOrder) {
      if (this.addOrder.size <= this.maxSessions!) break;
      this.addOrder.delete(oldestId);
      for (const memory of oldest.user.sessions.get(oldest.sessionId)?.memories ?? []) {
        oldest.user.unembedded.delete(memory);
      }
      oldest.user.sessions.delete(oldest.sessionId);
      if (oldest.user.sessions.size === 0) this.users.delete(oldest.userKey);
    }
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'InMemoryMemoryService');
    const key = userKey(session.appName, session.userId);
    let user = this.users.get(key);
    if (!user) this.users.set(key, (user = { sessions: new Map(), unembedded: new Set() }));
    const index = user.sessions.get(session.id);
    const update = planMemoryUpdate(session, index?.progress);
    // The entries are the service's own already (memories are built with new contents).
    const added = update.memories.map(({ entry, text }): StoredMemory => ({
      entry,
      words: ` ${memoryWords(text).join(' ')} `,
      text,
      vector: undefined,
    }));
    if (update.kind === 'append' && index) {
      index.progress = update.progress;
      for (const memory of added) index.memories.push(memory);
    } else {
      for (const memory of index?.memories ?? []) user.unembedded.delete(memory);
      user.sessions.set(session.id, { progress: update.progress, memories: added });
    }
    if (this.maxSessions !== undefined) this.bound(user, key, session.id);
    if (!this.embedder) return;
    for (const memory of added) user.unembedded.add(memory);
    await this.embedWaiting(user);
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'InMemoryMemoryService');
    const { mode, limit } = resolveSearchMode(params, {
      service: 'InMemoryMemoryService',
      embedder: this.embedder,
      maxResults: this.maxResults,
    });
    const user = this.users.get(userKey(params.appName, params.userId));
    if (!user || (mode === 'keyword' && words.length === 0)) return { memories: [] };
    const all = [...user.sessions.values()].flatMap((index) => index.memories);
    const byWords = mode === 'vector' ? [] : keywordRanking(all, words);
    const byMeaning =
      mode === 'keyword' || params.query.trim() === '' ? [] : await this.vectorRanking(all, params.query);
    const ranked =
      mode === 'hybrid' ? reciprocalRankFusion([byMeaning, byWords]) : mode === 'vector' ? byMeaning : byWords;
    return { memories: ranked.slice(0, limit).map((memory) => structuredClone(memory.entry)) };
  }

  /**
   * Embeds every stored memory again with the current embedder (after a switch of embedding model)
   * and answers how many there were. Without an embedder, a `ConfigurationError`.
   */
  async reindex(): Promise<{ memories: number }> {
    const embedder = this.requireEmbedder('reindex');
    let count = 0;
    for (const user of this.users.values()) {
      const memories = [...user.sessions.values()].flatMap((index) => index.memories);
      const vectors = await embedTexts(
        embedder,
        memories.map((memory) => memory.text),
      );
      memories.forEach((memory, i) => (memory.vector = unitVector(vectors[i]!)));
      user.unembedded.clear();
      count += memories.length;
    }
    return { memories: count };
  }

  /** Embeds the user's memories that have no vector yet; a failure keeps them waiting for the next add. */
  private async embedWaiting(user: UserIndex): Promise<void> {
    const waiting = [...user.unembedded];
    if (waiting.length === 0) return;
    let vectors: number[][];
    try {
      vectors = await embedTexts(
        this.embedder!,
        waiting.map((memory) => memory.text),
      );
    } catch (error) {
      if (!this.onError) throw error;
      this.onError(error);
      return;
    }
    waiting.forEach((memory, i) => {
      memory.vector = unitVector(vectors[i]!);
      user.unembedded.delete(memory);
    });
  }

  /** The user's memories nearest the query by cosine similarity, those with none of its meaning left out. */
  private async vectorRanking(all: StoredMemory[], query: string): Promise<StoredMemory[]> {
    const [vector] = await embedTexts(this.embedder!, [query]);
    const target = unitVector(vector!);
    const scored: { memory: StoredMemory; score: number }[] = [];
    for (const memory of all) {
      if (!memory.vector) continue;
      const score = dotProduct(target, memory.vector);
      if (score > 0) scored.push({ memory, score });
    }
    scored.sort((a, b) => b.score - a.score || (b.memory.entry.timestamp ?? 0) - (a.memory.entry.timestamp ?? 0));
    return scored.map(({ memory }) => memory);
  }

  private requireEmbedder(method: string): EmbeddingModel {
    if (!this.embedder) {
      throw new ConfigurationError(
        `InMemoryMemoryService.${method}() re-embeds memories, which needs an embedder, and this service has none. Pass one: new InMemoryMemoryService({ embedder }).`,
      );
    }
    return this.embedder;
  }
}

/**
 * The memories sharing a word with the query, best first: inverse document frequency weighs a word
 * few entries share above one most of them share; ties go to the newer.
 */
function keywordRanking(all: StoredMemory[], words: string[]): StoredMemory[] {
  const weight = new Map<string, number>();
  for (const word of words) {
    const spaced = ` ${word} `;
    const frequency = all.reduce((n, memory) => (memory.words.includes(spaced) ? n + 1 : n), 0);
    if (frequency > 0) weight.set(spaced, Math.log(1 + all.length / frequency));
  }
  const scored: { memory: StoredMemory; score: number }[] = [];
  for (const memory of all) {
    let score = 0;
    for (const [spaced, w] of weight) if (memory.words.includes(spaced)) score += w;
    if (score > 0) scored.push({ memory, score });
  }
  scored.sort((a, b) => b.score - a.score || (b.memory.entry.timestamp ?? 0) - (a.memory.entry.timestamp ?? 0));
  return scored.map(({ memory }) => memory);
}

// JSON keeps the two names apart whatever they contain ('a/b' + 'c' vs 'a' + 'b/c').
function userKey(appName: string, userId: string): string {
  return JSON.stringify([appName, userId]);
}
