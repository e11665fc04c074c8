import { describe, expect, it } from 'vitest';
import {
  type AppendEventParams,
  type Event,
  FunctionAgent,
  InMemoryMemoryService,
  InMemorySessionService,
  type Session,
  SequentialAgent,
  StorageError,
} from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import type { LeaseParams, SessionLease } from '@troupe/core/stores';
import { createApp, type ErrorBody, type ErrorReport, type WireEvent, type WireSession } from '../../src/index.js';
import { call, createSession, eventually, message } from '../helpers.js';

// Under PostgreSQL faults, /run answered 503 STORAGE for runs that had completed and were stored,
// and a client that retries a 503 runs the work twice. Now /run tells the three cases apart:
// nothing stored (503 STORAGE, safe to retry), the run's end stored (its events, a 200), and part
// of it stored with its end unknown (500 RUN_OUTCOME_UNKNOWN with the invocation to look up).
// After a fault, a session no longer stays SESSION_BUSY behind the lease of its own ended run.

/**
 * An in-memory store with PostgreSQL's faults: `lose` picks appends that are stored and then fail
 * as a connection lost during COMMIT does (the caller's copy is not updated); `refuse` picks
 * appends that fail with nothing stored; `releaseFails` makes lease releases fail that many times.
 */
class FaultyStore extends InMemorySessionService {
  lose: (event: Event) => boolean = () => false;
  refuse: (event: Event) => boolean = () => false;
  releaseFails = 0;
  /** Leases granted and then failed, as a lost connection after the write does. */
  grantedButLost = 0;
  readonly releases: SessionLease[] = [];

  override async leaseSession(params: LeaseParams): Promise<SessionLease | undefined> {
    const lease = await super.leaseSession(params);
    if (this.grantedButLost > 0) {
      this.grantedButLost--;
      throw new StorageError('The connection was lost after the lease was written (test).');
    }
    return lease;
  }

  override async appendEvent(params: AppendEventParams): Promise<Event> {
    if (this.refuse(params.event)) throw new StorageError('The connection was lost before COMMIT (test).');
    if (!this.lose(params.event)) return super.appendEvent(params);
    // Stored, but the caller never hears of it: its copy of the session stays where it was.
    const copy: Session = { ...params.session, events: [...params.session.events], state: { ...params.session.state } };
    await super.appendEvent({ ...params, session: copy });
    throw new StorageError('The connection was lost during COMMIT; it may or may not have taken effect (test).');
  }

  override async releaseLease(lease: SessionLease): Promise<void> {
    this.releases.push(lease);
    if (this.releaseFails > 0) {
      this.releaseFails--;
      throw new StorageError('The connection was lost while releasing the lease (test).');
    }
    return super.releaseLease(lease);
  }
}

function pipelineApp(options: { memory?: InMemoryMemoryService } = {}) {
  const store = new FaultyStore();
  const reports: [unknown, ErrorReport][] = [];
  const pipeline = new SequentialAgent({
    name: 'pipeline',
    subAgents: [
      new FunctionAgent({ name: 'first', run: () => 'first done' }),
      new FunctionAgent({ name: 'second', run: () => 'second done' }),
    ],
  });
  const app = createApp({
    apps: { pipeline },
    sessionService: store,
    ...(options.memory ? { memoryService: options.memory } : {}),
    onError: (error, _request, report) => reports.push([error, report]),
  });
  return { app, store, reports };
}

const runBody = (sessionId: string, extra: Record<string, unknown> = {}) => ({
  appName: 'pipeline',
  userId: 'u',
  sessionId,
  newMessage: message('go'),
  ...extra,
});

async function storedEvents(app: ReturnType<typeof createApp>, sessionId: string): Promise<WireEvent[]> {
  return ((await (await call(app, 'GET', `/apps/pipeline/users/u/sessions/${sessionId}`)).json()) as WireSession)
    .events!;
}

const authorOf = (event: { author?: string; errorCode?: string }) => event.errorCode ?? event.author;

describe('/run after a store failure says what the run left stored', () => {
  it('the final answer was stored but its COMMIT answer was lost: 500 RUN_OUTCOME_UNKNOWN naming the invocation, never 503', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.lose = (event) => event.author === 'second';
    const res = await call(app, 'POST', '/run', runBody(s.id, { invocationId: 'job-7' }));
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code, error.invocationId]).toEqual([500, 'RUN_OUTCOME_UNKNOWN', 'job-7']);
    expect(error.message).toContain(`GET /apps/pipeline/users/u/sessions/${s.id}`);
    expect(error.message).toContain(`POST /apps/pipeline/users/u/sessions/${s.id}/resume`);
    expect(error.message).toContain('"invocationId": "job-7"');
    expect(error.requestId).toBe(res.headers.get('X-Request-Id'));
    // What the client finds when it looks: the run finished.
    expect((await storedEvents(app, s.id)).map(authorOf)).toEqual(['user', 'first', 'second']);
  });

  it('the opening message was stored but its COMMIT answer was lost: RUN_OUTCOME_UNKNOWN, not a 503 that invites a second run', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.lose = (event) => event.author === 'user';
    const res = await call(app, 'POST', '/run', runBody(s.id));
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code]).toEqual([500, 'RUN_OUTCOME_UNKNOWN']);
    const stored = await storedEvents(app, s.id);
    expect(stored.map(authorOf)).toEqual(['user']);
    expect(error.invocationId).toBe(stored[0]!.invocationId);
  });

  it('nothing was stored (the opening was refused, and the session shows it is not there): 503 STORAGE, and a retry runs once', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.refuse = (event) => event.author === 'user';
    const res = await call(app, 'POST', '/run', runBody(s.id));
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code]).toEqual([503, 'STORAGE']);
    expect(await storedEvents(app, s.id)).toEqual([]);
    store.refuse = () => false;
    expect((await call(app, 'POST', '/run', runBody(s.id))).status).toBe(200);
    expect((await storedEvents(app, s.id)).map(authorOf)).toEqual(['user', 'first', 'second']);
  });

  it('a store failure after the run ended and was stored (adding the session to memory): a 200 with the run, onError hears of it', async () => {
    const memory = new InMemoryMemoryService();
    memory.addSessionToMemory = () => Promise.reject(new StorageError('The memory database is unreachable (test).'));
    const { app, reports } = pipelineApp({ memory });
    const s = await createSession(app, 'pipeline', 'u');
    const res = await call(app, 'POST', '/run', runBody(s.id));
    expect(res.status).toBe(200);
    expect(((await res.json()) as WireEvent[]).map(authorOf)).toEqual(['first', 'second']);
    expect(reports.map(([error, report]) => [(error as Error).message, report.level])).toEqual([
      ['The memory database is unreachable (test).', 'error'],
    ]);
    const sse = await (await call(app, 'POST', '/run_sse', runBody(s.id))).text();
    expect(sse).not.toContain('STORAGE');
    expect(sse).toContain('second done');
  });
});

describe('the lease of a run that ended while the store was away', () => {
  it('does not keep the session busy: the next run in this process takes it back at once', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.releaseFails = 1_000; // the store stays away for the release and its retries
    expect((await call(app, 'POST', '/run', runBody(s.id))).status).toBe(200);
    await eventually(() => expect(isSessionBusy(store, 'pipeline', 'u', s.id)).toBe(false));
    store.releaseFails = 0;
    const next = await call(app, 'POST', '/run', runBody(s.id));
    expect(next.status).toBe(200);
  });

  it('a lease the store granted to a claim whose answer was lost: 503 STORAGE (nothing stored), then the next run gets the session', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.grantedButLost = 1;
    const refused = await call(app, 'POST', '/run', runBody(s.id));
    expect(((await refused.json()) as ErrorBody).error.code).toBe('STORAGE');
    expect(refused.status).toBe(503);
    expect(await storedEvents(app, s.id)).toEqual([]);
    expect((await call(app, 'POST', '/run', runBody(s.id))).status).toBe(200);
  });

  it('is released once the store answers again, so another process gets the session too', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    store.releaseFails = 2;
    expect((await call(app, 'POST', '/run', runBody(s.id))).status).toBe(200);
    // "Another process": a lease of another owner is granted only once the dead one was given back.
    const key = { appName: 'pipeline', userId: 'u', sessionId: s.id };
    await eventually(async () => {
      expect(await store.leaseSession({ ...key, owner: 'other-process', ttlMs: 30_000 })).toBeDefined();
    });
    expect(store.releases.length).toBeGreaterThanOrEqual(3);
  });

  it('a lease held by another process: 409 SESSION_BUSY with a Retry-After header and the time in the message', async () => {
    const { app, store } = pipelineApp();
    const s = await createSession(app, 'pipeline', 'u');
    await store.leaseSession({ appName: 'pipeline', userId: 'u', sessionId: s.id, owner: 'elsewhere', ttlMs: 60_000 });
    const res = await call(app, 'POST', '/run', runBody(s.id));
    const { error } = (await res.json()) as ErrorBody;
    expect([res.status, error.code]).toEqual([409, 'SESSION_BUSY']);
    expect(res.headers.get('Retry-After')).toBe('30');
    expect(error.message).toContain('expires within 30 s');
    expect(error.message).toContain('Retry in 30 s');
    expect(error.message).not.toMatch(/leaseTtlMs|runner\./);
  });
});
