import pg from 'pg';
import { expect } from 'vitest';
import { StorageError, createEvent, type Event, type SessionKey, type SessionService } from '@troupe/core';

/**
 * Appends under faults: several sessions written concurrently, each with a run of events whose deltas
 * are easy to fold, retried the way a careful caller would after a StorageError (reload, skip what
 * was stored, append the rest). Any error that is not a StorageError fails the test.
 */
export interface LoadResult {
  /** Operations that failed with StorageError and were retried. */
  storageErrors: StorageError[];
  /** Appends whose StorageError said the outcome was unknown, and whose event was found stored. */
  storedDespiteError: number;
}

/** The delta of the `i`-th event (1-based) of a session: a counter and a key that is overwritten in turn. */
export function deltaOf(i: number): Record<string, unknown> {
  return { n: i, [`slot${i % 3}`]: `value ${i}` };
}

/** Counts appends as they are stored and StorageErrors as they happen, so a test can strike mid-load and see the faults land. */
export interface LoadProgress {
  appended: number;
  failed: number;
}

/** Writes `perSession` events to each session, retrying after StorageErrors until `deadline` (ms since epoch). */
export async function appendUnderFaults(
  service: SessionService,
  keys: SessionKey[],
  perSession: number,
  deadline: number,
  progress: LoadProgress = { appended: 0, failed: 0 },
): Promise<LoadResult> {
  const result: LoadResult = { storageErrors: [], storedDespiteError: 0 };
  const retrying = async <T>(work: () => Promise<T>): Promise<T> => {
    for (;;) {
      if (Date.now() > deadline)
        throw new Error(
          `The load did not finish before its deadline; ${result.storageErrors.length} StorageErrors so far.`,
        );
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        result.storageErrors.push(error);
        progress.failed++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  const load = async (key: SessionKey): Promise<void> => {
    let session = (await retrying(() => service.getSession(key)))!;
    for (let i = 1; i <= perSession; i++) {
      const event = createEvent({ invocationId: 'fault-load', author: 'worker', actions: { stateDelta: deltaOf(i) } });
      for (;;) {
        try {
          await service.appendEvent({ session, event });
          progress.appended++;
          break;
        } catch (error) {
          if (!(error instanceof StorageError)) throw error;
          result.storageErrors.push(error);
          progress.failed++;
          // The append may have committed before the connection broke: reload and look.
          session = (await retrying(() => service.getSession(key)))!;
          if (session.events.some((e) => e.id === event.id)) {
            result.storedDespiteError++;
            progress.appended++;
            break;
          }
        }
      }
    }
  };
  await Promise.all(keys.map(load));
  return result;
}

/** The session holds events 1..perSession once each, in order, and its state is the fold of their deltas. */
export async function expectConsistent(service: SessionService, key: SessionKey, perSession: number): Promise<void> {
  const session = (await service.getSession(key))!;
  const ns = session.events.map((e: Event) => e.actions.stateDelta.n);
  expect(ns).toEqual(Array.from({ length: perSession }, (_, i) => i + 1));
  expect(new Set(session.events.map((e) => e.id)).size).toBe(perSession);
  expect(session.version).toBe(perSession);
  const folded: Record<string, unknown> = {};
  for (const e of session.events) Object.assign(folded, e.actions.stateDelta);
  expect(session.state).toEqual(folded);
}

/** Asserts the shape every connection failure must have: a StorageError that says what happened and that a retry may work. */
export function expectRetryableStorageError(error: unknown): void {
  expect(error).toBeInstanceOf(StorageError);
  const storage = error as StorageError;
  expect(storage.code).toBe('STORAGE');
  expect(storage.message).toMatch(/PostgreSQL could not be reached while .*retry/);
  expect(storage.cause).toBeInstanceOf(Error);
}

/**
 * Holds the `seq`-th append of a session: another connection inserts that event row and keeps its
 * transaction open, so the append waits on the row's lock (an operation certainly in flight) until
 * `release()` rolls it back. A server stopped or a backend ended meanwhile takes the row with it.
 */
export async function holdAppend(
  connectionString: string,
  schema: string,
  sessionId: string,
  seq: number,
): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString });
  // Losing the connection (the test stops the server) must not end the test process.
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  const inserted = await client.query(
    `INSERT INTO "${schema}".events (session_pk, seq, id, timestamp, format, data) SELECT pk, $2, $3, 0, 1, '{}' FROM "${schema}".sessions WHERE id = $1`,
    [sessionId, seq, `held-${seq}`],
  );
  if (inserted.rowCount !== 1) throw new Error(`holdAppend: no session '${sessionId}' in schema '${schema}'.`);
  return {
    release: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
