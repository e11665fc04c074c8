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

/** Counts appends as they are stored, so a test can strike mid-load. */
export interface LoadProgress {
  appended: number;
}

/** Writes `perSession` events to each session, retrying after StorageErrors until `deadline` (ms since epoch). */
export async function appendUnderFaults(
  service: SessionService,
  keys: SessionKey[],
  perSession: number,
  deadline: number,
  progress: LoadProgress = { appended: 0 },
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
