/**
 * The contract every {@link RunRecordStore} passes: the run records a background-run queue keeps in
 * the session store (SPEC §13). One suite, run by the in-memory, SQLite and PostgreSQL stores from the
 * same test files as the session contract.
 *
 * @example
 * // packages/sqlite/test/sqlite-session-service.test.ts
 * runRecordsContract('SqliteSessionService', openFresh, {
 *   // Stores with shared storage pass it: the races between two instances run only then.
 *   openSecond: async ({ path }) => {
 *     const service = new SqliteSessionService({ path });
 *     return { service, close: () => service.close() };
 *   },
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FINAL_RUN_STATUSES } from '../../stores/index.js';
import {
  ConfigurationError,
  InvocationExistsError,
  SessionBusyError,
  SessionNotFoundError,
  type SessionKey,
  type SessionService,
} from '../../index.js';
import {
  supportsRunRecords,
  type CreateRunParams,
  type RunRecord,
  type RunRecordingSessionService,
} from '../../stores/index.js';
import { richState } from './round-trip-data.js';

/** A service under test and how to dispose of it. Extra fields (a file path) reach `openSecond`. */
export interface RunRecordsFixture {
  service: SessionService;
  /** Closes connections and removes the storage. Called after every test. */
  close?: () => Promise<void>;
}

/** Options of {@link runRecordsContract}. */
export interface RunRecordsContractOptions<F extends RunRecordsFixture> {
  /** Opens a second instance over the same storage as `first`, as a second replica would. */
  openSecond?: (first: F) => Promise<RunRecordsFixture>;
}

const USER = 'alice';
// Clocks: PostgreSQL stamps runs with the database's clock, which may differ a little from this process's.
const CLOCK_SLACK_MS = 5000;

/** Registers the run-record contract suite for one implementation. */
export function runRecordsContract<F extends RunRecordsFixture>(
  name: string,
  factory: () => Promise<F>,
  options: RunRecordsContractOptions<F> = {},
): void {
  describe(`RunRecordStore contract: ${name}`, () => {
    let fixture: F;
    let store: RunRecordingSessionService;
    // Fresh names per test: a PostgreSQL schema is shared by the tests of a file.
    let APP: string;
    let uid: (label: string) => string;
    const extraClosers: (() => Promise<void>)[] = [];

    beforeEach(async () => {
      const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      APP = `runs-app-${run}`;
      uid = (label) => `${label}-${run}`;
      fixture = await factory();
      expect(
        supportsRunRecords(fixture.service),
        'the store should implement createRun, getRun, listRuns and updateRun',
      ).toBe(true);
      store = fixture.service as RunRecordingSessionService;
    });

    afterEach(async () => {
      for (const close of extraClosers.splice(0).reverse()) await close();
      await fixture.close?.();
    });

    const newSession = async (from: SessionService = store): Promise<SessionKey> => {
      const session = await from.createSession({ appName: APP, userId: USER });
      return { appName: APP, userId: USER, sessionId: session.id };
    };
    let runs = 0;
    const create = (
      key: SessionKey,
      extra: Partial<CreateRunParams> = {},
      from: RunRecordingSessionService = store,
    ): Promise<RunRecord> =>
      from.createRun({ ...key, runId: uid(`run${++runs}`), request: { newMessage: 'hello' }, ...extra });
    const mustGet = async (runId: string): Promise<RunRecord> => {
      const run = await store.getRun(runId);
      expect(run, `run '${runId}' should exist`).toBeDefined();
      return run!;
    };
    const ours = (list: RunRecord[]): RunRecord[] => list.filter((r) => r.appName === APP);

    describe('createRun and getRun', () => {
      it('stores a pending run with attempts 0 and the request, JSON nested objects and all, and reads it back', async () => {
        const key = await newSession();
        const request = {
          newMessage: { role: 'user', parts: [{ text: 'Book a flight' }] },
          stateDelta: richState,
          resume: [{ id: 'i1', answer: { ok: true } }],
        };
        const before = Date.now();
        const run = await store.createRun({ ...key, runId: uid('r'), request });
        expect(run).toMatchObject({
          ...key,
          runId: uid('r'),
          status: 'pending',
          attempts: 0,
          cancelRequested: false,
          request,
        });
        expect(run.error).toBeUndefined();
        expect(Number.isInteger(run.seq)).toBe(true);
        expect(run.createdAt).toBeGreaterThanOrEqual(before - CLOCK_SLACK_MS);
        expect(run.createdAt).toBeLessThanOrEqual(Date.now() + CLOCK_SLACK_MS);
        expect(run.updatedAt).toBe(run.createdAt);
        expect(await store.getRun(run.runId)).toEqual(run);
        expect(await store.getRun(uid('missing'))).toBeUndefined();
      });

      it('text a store cannot hold as is (NUL, lone surrogates) round-trips in the request and the error', async () => {
        const key = await newSession();
        const awkward = { text: 'nul \u0000 and \ud800 alone', 'key \u0000': ['\udc00', '\ufffd'] };
        const run = await create(key, { request: awkward });
        expect((await mustGet(run.runId)).request).toEqual(awkward);
        const failed = await store.updateRun(run.runId, {
          status: 'failed',
          error: { code: 'INTERNAL', message: 'bad \u0000 \ud800' },
        });
        expect((await mustGet(run.runId)).error).toEqual({ code: 'INTERNAL', message: 'bad \u0000 \ud800' });
        expect(failed?.error).toEqual({ code: 'INTERNAL', message: 'bad \u0000 \ud800' });
      });

      it('returns copies: changing the request given or a returned record does not change the store', async () => {
        const key = await newSession();
        const request = { nested: { list: [1, 2] } };
        const run = await create(key, { request });
        request.nested.list.push(3);
        (run.request.nested as { list: number[] }).list.push(4);
        run.status = 'completed';
        const got = await mustGet(run.runId);
        expect(got.request).toEqual({ nested: { list: [1, 2] } });
        expect(got.status).toBe('pending');
        (got.request.nested as { list: number[] }).list.push(5);
        expect((await mustGet(run.runId)).request).toEqual({ nested: { list: [1, 2] } });
      });

      it('a run id that is taken, by this session or another, throws InvocationExistsError and changes nothing', async () => {
        const key = await newSession();
        const run = await create(key, { request: { first: true } });
        for (const other of [key, await newSession()]) {
          const attempt = store.createRun({ ...other, runId: run.runId, request: { second: true } });
          await expect(attempt).rejects.toBeInstanceOf(InvocationExistsError);
          await expect(attempt).rejects.toThrow(
            new RegExp(`Run '${run.runId}' already exists.*Choose another run id, or omit it`),
          );
        }
        expect(await mustGet(run.runId)).toEqual(run);
        expect(await store.listRuns({ session: key })).toEqual([run]);
      });

      it('a session that does not exist throws SessionNotFoundError and stores nothing', async () => {
        const key = await newSession();
        for (const missing of [
          { ...key, sessionId: uid('missing') },
          { ...key, userId: 'bob' },
        ]) {
          const attempt = store.createRun({ ...missing, runId: uid('orphan'), request: {} });
          await expect(attempt).rejects.toBeInstanceOf(SessionNotFoundError);
          await expect(attempt).rejects.toThrow(
            `Cannot create run '${uid('orphan')}' for session '${missing.sessionId}'`,
          );
        }
        expect(await store.getRun(uid('orphan'))).toBeUndefined();
      });

      it('a request that is not JSON data is refused with ConfigurationError and nothing is stored', async () => {
        const key = await newSession();
        await expect(store.createRun({ ...key, runId: uid('big'), request: { n: 1n } })).rejects.toBeInstanceOf(
          ConfigurationError,
        );
        expect(await store.getRun(uid('big'))).toBeUndefined();
      });
    });

    describe('exclusive runs', () => {
      it('are refused with SessionBusyError while the session has a pending or a running run', async () => {
        const key = await newSession();
        const active = await create(key);
        const busy = create(key, { runId: uid('second'), exclusive: true });
        await expect(busy).rejects.toBeInstanceOf(SessionBusyError);
        await expect(busy).rejects.toThrow(
          new RegExp(
            `session '${key.sessionId}'.* already has the active run '${active.runId}'\\. Wait for it to finish, cancel it, or .*multitaskStrategy 'enqueue' or 'interrupt'`,
          ),
        );
        await store.updateRun(active.runId, { status: 'running', attempts: 1 });
        await expect(create(key, { runId: uid('second'), exclusive: true })).rejects.toBeInstanceOf(SessionBusyError);
        expect(await store.getRun(uid('second'))).toBeUndefined();
        expect((await store.listRuns({ session: key })).map((r) => r.runId)).toEqual([active.runId]);
      });

      it.each([...FINAL_RUN_STATUSES, 'interrupted' as const])(
        'are allowed once the active run is %s',
        async (status) => {
          const key = await newSession();
          const first = await create(key, { exclusive: true });
          await store.updateRun(first.runId, { status });
          const second = await create(key, { exclusive: true });
          expect(second.status).toBe('pending');
        },
      );

      it('do not stop non-exclusive runs, nor exclusive runs of other sessions', async () => {
        const key = await newSession();
        const first = await create(key, { exclusive: true });
        const queued = await create(key);
        const elsewhere = await create(await newSession(), { exclusive: true });
        expect([first, queued, elsewhere].map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
        expect((await store.listRuns({ session: key })).map((r) => r.runId)).toEqual([first.runId, queued.runId]);
      });
    });

    describe('listRuns', () => {
      it("lists a session's runs in creation order (seq), filtered by status, with a limit", async () => {
        const key = await newSession();
        const other = await newSession();
        const a = await create(key);
        const x = await create(other);
        const b = await create(key);
        const c = await create(key);
        expect(a.seq).toBeLessThan(x.seq);
        expect(x.seq).toBeLessThan(b.seq);
        expect(b.seq).toBeLessThan(c.seq);
        await store.updateRun(b.runId, { status: 'running' });
        await store.updateRun(c.runId, { status: 'completed' });

        const ids = (list: RunRecord[]) => list.map((r) => r.runId);
        expect(ids(await store.listRuns({ session: key }))).toEqual([a.runId, b.runId, c.runId]);
        expect(ids(await store.listRuns({ session: key, statuses: ['pending', 'running'] }))).toEqual([
          a.runId,
          b.runId,
        ]);
        expect(ids(await store.listRuns({ session: key, statuses: ['completed'] }))).toEqual([c.runId]);
        expect(ids(await store.listRuns({ session: key, statuses: [] }))).toEqual([]);
        expect(ids(await store.listRuns({ session: key, limit: 2 }))).toEqual([a.runId, b.runId]);
        expect(ids(await store.listRuns({ session: key, limit: 0 }))).toEqual([]);
        expect(ids(await store.listRuns({ session: { ...key, sessionId: uid('none') } }))).toEqual([]);
        expect(await store.listRuns({ session: key })).toEqual([
          await mustGet(a.runId),
          await mustGet(b.runId),
          await mustGet(c.runId),
        ]);
      });

      it('lists runs of every session by status, oldest first, as a sweeper does', async () => {
        const key = await newSession();
        const other = await newSession();
        const a = await create(key);
        const x = await create(other);
        const b = await create(key);
        await store.updateRun(b.runId, { status: 'cancelled' });
        const ids = (list: RunRecord[]) => ours(list).map((r) => r.runId);
        expect(ids(await store.listRuns({}))).toEqual([a.runId, x.runId, b.runId]);
        expect(ids(await store.listRuns({ statuses: ['pending', 'running'] }))).toEqual([a.runId, x.runId]);
        const limited = await store.listRuns({ statuses: ['cancelled'], limit: 1 });
        expect(limited).toHaveLength(1);
      });

      it('refuses a limit that is not a whole number >= 0', async () => {
        await expect(store.listRuns({ limit: -1 })).rejects.toThrow(
          /listRuns needs 'limit' as a whole number >= 0; got -1/,
        );
        await expect(store.listRuns({ limit: 1.5 })).rejects.toBeInstanceOf(ConfigurationError);
      });
    });

    describe('updateRun', () => {
      it('changes the given fields, stamps updatedAt and returns the new record; unknown runs give undefined', async () => {
        const key = await newSession();
        const run = await create(key);
        const updated = await store.updateRun(run.runId, {
          status: 'running',
          attempts: 1,
          request: { newMessage: 'changed', n: [1] },
        });
        expect(updated).toEqual({
          ...run,
          status: 'running',
          attempts: 1,
          request: { newMessage: 'changed', n: [1] },
          updatedAt: updated!.updatedAt,
        });
        expect(updated!.updatedAt).toBeGreaterThanOrEqual(run.updatedAt);
        expect(await mustGet(run.runId)).toEqual(updated);
        expect(await store.updateRun(uid('missing'), { status: 'running' })).toBeUndefined();
        expect(await store.getRun(uid('missing'))).toBeUndefined();
      });

      it('compare-and-set: a wrong status or a wrong attempts count changes nothing and gives undefined', async () => {
        const key = await newSession();
        const run = await create(key);
        const taken = await store.updateRun(
          run.runId,
          { status: 'running', attempts: 1 },
          { status: ['pending'], attempts: 0 },
        );
        expect(taken).toMatchObject({ status: 'running', attempts: 1 });

        // A frozen worker of attempt 0, or one that saw the run pending, must not overwrite attempt 1.
        expect(
          await store.updateRun(run.runId, { status: 'failed' }, { status: ['running'], attempts: 0 }),
        ).toBeUndefined();
        expect(await store.updateRun(run.runId, { status: 'failed' }, { status: ['pending'] })).toBeUndefined();
        expect(await store.updateRun(run.runId, { status: 'failed' }, { status: [] })).toBeUndefined();
        expect(await mustGet(run.runId)).toEqual(taken);

        const done = await store.updateRun(
          run.runId,
          { status: 'completed' },
          { status: ['pending', 'running'], attempts: 1 },
        );
        expect(done?.status).toBe('completed');
        expect(await store.updateRun(run.runId, { attempts: 2 }, { attempts: 1 })).toMatchObject({
          status: 'completed',
          attempts: 2,
        });
      });

      it('sets an error and clears it with null; an update without error keeps it', async () => {
        const key = await newSession();
        const run = await create(key);
        const failed = await store.updateRun(run.runId, {
          status: 'failed',
          error: { code: 'MODEL', message: 'The model failed.' },
        });
        expect(failed?.error).toEqual({ code: 'MODEL', message: 'The model failed.' });
        expect((await store.updateRun(run.runId, { attempts: 3 }))?.error).toEqual({
          code: 'MODEL',
          message: 'The model failed.',
        });
        const cleared = await store.updateRun(run.runId, { status: 'pending', error: null });
        expect(cleared?.error).toBeUndefined();
        expect((await mustGet(run.runId)).error).toBeUndefined();
      });

      it('sets cancelRequested, alone or with a status condition', async () => {
        const key = await newSession();
        const run = await create(key);
        expect(await store.updateRun(run.runId, { cancelRequested: true }, { status: ['running'] })).toBeUndefined();
        const cancelling = await store.updateRun(
          run.runId,
          { cancelRequested: true },
          { status: ['pending', 'running'] },
        );
        expect(cancelling).toMatchObject({ status: 'pending', cancelRequested: true });
        expect((await mustGet(run.runId)).cancelRequested).toBe(true);
        expect((await store.updateRun(run.runId, { cancelRequested: false }))?.cancelRequested).toBe(false);
      });
    });

    it('deleteSession deletes its runs (their ids become free), and only its runs', async () => {
      const key = await newSession();
      const other = await newSession();
      const gone = await create(key);
      const kept = await create(other);
      await store.deleteSession(key);
      expect(await store.getRun(gone.runId)).toBeUndefined();
      expect(await store.listRuns({ session: key })).toEqual([]);
      expect(await mustGet(kept.runId)).toEqual(kept);
      const reused = await create(other, { runId: gone.runId });
      expect(reused.seq).toBeGreaterThan(kept.seq);
    });

    if (options.openSecond) {
      const openSecond = options.openSecond;
      describe('two service instances on the same storage', () => {
        let other: RunRecordingSessionService;

        beforeEach(async () => {
          const second = await openSecond(fixture);
          other = second.service as RunRecordingSessionService;
          if (second.close) extraClosers.push(second.close);
        });

        it('a run created through one instance is read, listed and updated through the other', async () => {
          const key = await newSession();
          const run = await create(key);
          expect(await other.getRun(run.runId)).toEqual(run);
          const running = await other.updateRun(
            run.runId,
            { status: 'running', attempts: 1 },
            { status: ['pending'], attempts: 0 },
          );
          expect(await store.listRuns({ session: key })).toEqual([running]);
        });

        it('of 10 exclusive creates racing on one session through both instances, exactly one succeeds', async () => {
          const key = await newSession();
          const results = await Promise.allSettled(
            Array.from({ length: 10 }, (_, i) =>
              create(key, { runId: uid(`race${i}`), exclusive: true }, i % 2 === 0 ? store : other),
            ),
          );
          const won = results.filter((r) => r.status === 'fulfilled');
          const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
          expect(won).toHaveLength(1);
          for (const r of lost) expect(r.reason).toBeInstanceOf(SessionBusyError);
          expect(await store.listRuns({ session: key })).toHaveLength(1);
        });

        it('of racing creates with one run id, exactly one succeeds; of racing takes of one attempt, exactly one wins', async () => {
          const key = await newSession();
          const runId = uid('same');
          const creates = await Promise.allSettled(
            [store, other, store, other].map((from) => create(key, { runId }, from)),
          );
          expect(creates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          for (const r of creates) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InvocationExistsError);

          const take = (from: RunRecordingSessionService) =>
            from.updateRun(runId, { status: 'running', attempts: 1 }, { status: ['pending'], attempts: 0 });
          const takes = await Promise.all([take(store), take(other), take(store), take(other)]);
          expect(takes.filter((r) => r !== undefined)).toHaveLength(1);
          expect((await mustGet(runId)).attempts).toBe(1);
        });
      });
    }
  });
}
