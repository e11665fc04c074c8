import { resolve } from 'node:path';
import {
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  type ArtifactService,
  type MemoryService,
  type Session,
  type SessionService,
} from '@troupe/core';
import { SqliteArtifactService, SqliteMemoryService, SqliteSessionService } from '@troupe/sqlite';

/** Where `troupe run` keeps sessions when neither `--db` nor `--memory` is given, relative to the working directory. */
export const DEFAULT_DB_PATH = '.troupe/troupe.db';

/**
 * The bound of the in-memory stores (`--memory`), so a long-lived `troupe api --memory` does not
 * grow without end: at most 10,000 sessions, each dropped after a day unused (least recently used
 * first; never one that is running or paused), and the memories of the last 10,000 sessions.
 */
export const MEMORY_STORE_BOUND = Object.freeze({ maxSessions: 10_000, idleTtlMs: 24 * 60 * 60 * 1000 });

/** Which store to open: the flags of `troupe run` that choose it. */
export interface SessionStoreOptions {
  /** Relative `db` paths (and the default one) resolve against this directory. */
  cwd: string;
  /** `--db`: the SQLite file. @default {@link DEFAULT_DB_PATH} */
  db?: string | undefined;
  /** `--memory`: keep sessions in memory only; nothing is written to disk. @default false */
  memory?: boolean | undefined;
}

/** The session store of one command, open until {@link SessionStore.close}. */
export interface SessionStore {
  readonly service: SessionService;
  /** The artifact store beside it: the same SQLite file (its own table), or memory. */
  readonly artifacts: ArtifactService;
  /** Long-term memory beside it: the same SQLite file (its own tables), or memory. */
  readonly memories: MemoryService;
  /** The absolute path of the SQLite file, or undefined for the in-memory store. */
  readonly path: string | undefined;
  /** Closes the store (the SQLite file stays). Call it once the command is done. */
  close(): Promise<void>;
}

/**
 * Creates the session store the CLI runs with. This is the one place the CLI picks a store:
 * SQLite at `.troupe/troupe.db` under `cwd` by default (the folder is created), the file named
 * by `db`, or memory for throwaway runs.
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  if (options.memory)
    return {
      service: new InMemorySessionService(MEMORY_STORE_BOUND),
      artifacts: new InMemoryArtifactService(),
      memories: new InMemoryMemoryService({ maxSessions: MEMORY_STORE_BOUND.maxSessions }),
      path: undefined,
      close: async () => {},
    };
  const path = resolve(options.cwd, options.db ?? DEFAULT_DB_PATH);
  const service = new SqliteSessionService({ path });
  let artifacts: SqliteArtifactService;
  let memories: SqliteMemoryService;
  try {
    artifacts = new SqliteArtifactService({ path });
  } catch (error) {
    void service.close();
    throw error;
  }
  try {
    memories = new SqliteMemoryService({ path });
  } catch (error) {
    void artifacts.close();
    void service.close();
    throw error;
  }
  return {
    service,
    artifacts,
    memories,
    path,
    close: async () => {
      await memories.close();
      await artifacts.close();
      await service.close();
    },
  };
}

/** Which session to open. */
export interface SessionRequest {
  appName: string;
  userId: string;
  /** An existing session to continue, or the id of a new one. A fresh id is made when omitted. */
  sessionId?: string | undefined;
}

/** Returns the requested session, creating it when it does not exist yet. */
export async function openSession(service: SessionService, request: SessionRequest): Promise<Session> {
  const { appName, userId, sessionId } = request;
  if (sessionId !== undefined) {
    const existing = await service.getSession({ appName, userId, sessionId });
    if (existing) return existing;
    return service.createSession({ appName, userId, sessionId });
  }
  return service.createSession({ appName, userId });
}
