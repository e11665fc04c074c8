import type { Session } from '../sessions/session.js';
import { checkMemorySession, resolveMaxResults, searchWords } from './memory-params.js';
import type { MemoryEntry, MemoryService, SearchMemoryParams, SearchMemoryResponse } from './memory-service.js';
import { planMemoryUpdate, type MemoryProgress } from './memory-progress.js';
import { memoryWords } from './memory-words.js';

/** Options of {@link InMemoryMemoryService}. */
export interface InMemoryMemoryServiceOptions {
  /** The most memories one search returns, best first. @default 10 */
  maxResults?: number;
}

interface StoredMemory {
  entry: MemoryEntry;
  /**
   * Its distinct words, each between spaces (` lisbon city `): one flat string per memory instead
   * of a Set of word strings (each holding on to the text it was cut from), since every session of
   * a server stays indexed.
   */
  words: string;
}

/** One session's memories, and how far they cover it. */
interface SessionIndex {
  progress: MemoryProgress;
  memories: StoredMemory[];
}

/**
 * Long-term memory kept in this process (ADK's `InMemoryMemoryService`), for tests and demos: it
 * ends with the process. Search matches words: an entry is found when it shares a word with the
 * query (case-insensitive, any script; punctuation ignored). Entries sharing more of the query's
 * words, and rarer ones, come first (ties: the newer first), at most `maxResults`.
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
  /** App and user → session id → that session's memories. */
  private readonly users = new Map<string, Map<string, SessionIndex>>();

  constructor(options: InMemoryMemoryServiceOptions = {}) {
    this.maxResults = resolveMaxResults(options.maxResults, 'InMemoryMemoryService');
  }

  async addSessionToMemory(session: Session): Promise<void> {
    checkMemorySession(session, 'InMemoryMemoryService');
    const key = userKey(session.appName, session.userId);
    let sessions = this.users.get(key);
    if (!sessions) this.users.set(key, (sessions = new Map()));
    const index = sessions.get(session.id);
    const update = planMemoryUpdate(session, index?.progress);
    // The entries are the service's own already (memories are built with new contents).
    const added = update.memories.map(({ entry, text }) => ({ entry, words: ` ${memoryWords(text).join(' ')} ` }));
    if (update.kind === 'append' && index) {
      index.progress = update.progress;
      for (const memory of added) index.memories.push(memory);
    } else {
      sessions.set(session.id, { progress: update.progress, memories: added });
    }
  }

  async searchMemory(params: SearchMemoryParams): Promise<SearchMemoryResponse> {
    const words = searchWords(params, 'InMemoryMemoryService');
    const sessions = this.users.get(userKey(params.appName, params.userId));
    if (words.length === 0 || !sessions) return { memories: [] };
    const all = [...sessions.values()].flatMap((index) => index.memories);
    // Inverse document frequency: a word few entries share says more than one most of them share.
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
    return { memories: scored.slice(0, this.maxResults).map(({ memory }) => structuredClone(memory.entry)) };
  }
}

// JSON keeps the two names apart whatever they contain ('a/b' + 'c' vs 'a' + 'b/c').
function userKey(appName: string, userId: string): string {
  return JSON.stringify([appName, userId]);
}
