import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  PG_URL,
  describePostgres,
  dropSchema,
  requirePostgres,
  uniqueSchema,
} from '../../packages/postgres/test/pg-test-env.js';

// Two API replicas (real `node` processes) on one PostgreSQL store, as behind a load balancer. The
// session lease keeps one invocation per session across them: a double text is refused without
// touching the running turn, a killed replica's run is resumed by the other once its lease expires,
// and a frozen replica that wakes after being taken over stores nothing.

const REPLICA = fileURLToPath(new URL('./replica.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/server/dist/index.js', import.meta.url));
const LEASE_TTL_MS = 1_000;
const STEP_MS = 400;

interface Replica {
  child: ChildProcessWithoutNullStreams;
  url: string;
}

interface WireEvent {
  author: string;
  invocationId: string;
  output?: unknown;
  errorCode?: string;
}

describePostgres('API replicas on one PostgreSQL session', () => {
  const schema = uniqueSchema('replicas');
  const running: ChildProcessWithoutNullStreams[] = [];

  beforeAll(async () => {
    await requirePostgres();
    if (!existsSync(BUILT))
      throw new Error(`The replicas run the built packages and ${BUILT} is missing. Run npm run build first.`);
  });
  afterEach(() => {
    // Only our own children, by pid; a stopped one must be continued to die.
    for (const child of running.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }
  });
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  function startReplica(): Promise<Replica> {
    const child = spawn(process.execPath, [REPLICA, PG_URL, schema, String(LEASE_TTL_MS), String(STEP_MS)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.push(child);
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`replica did not start within 15 s: ${err}`)), 15_000);
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening (\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve({ child, url: match[1]! });
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`replica exited with ${code}: ${err}`));
      });
    });
  }

  async function createSession(replica: Replica): Promise<string> {
    const response = await fetch(`${replica.url}/apps/jobs/users/u/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  function run(replica: Replica, sessionId: string, text: string, invocationId?: string): Promise<Response> {
    const body = {
      appName: 'jobs',
      userId: 'u',
      sessionId,
      newMessage: { role: 'user', parts: [{ text }] },
      ...(invocationId ? { invocationId } : {}),
    };
    return fetch(`${replica.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    });
  }

  function resume(replica: Replica, sessionId: string, invocationId: string): Promise<Response> {
    return fetch(`${replica.url}/apps/jobs/users/u/sessions/${sessionId}/resume`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ responses: {}, invocationId }),
      signal: AbortSignal.timeout(20_000),
    });
  }

  /** Resumes on `replica` as soon as the session's lease lets it (409 SESSION_BUSY until then). */
  async function resumeOnceFree(replica: Replica, sessionId: string, invocationId: string): Promise<Response> {
    let accepted: Response | undefined;
    await until(`the resume of ${invocationId} to be accepted`, async () => {
      const response = await resume(replica, sessionId, invocationId);
      if (response.status === 409) return false;
      accepted = response;
      return true;
    });
    return accepted!;
  }

  async function events(replica: Replica, sessionId: string): Promise<WireEvent[]> {
    const response = await fetch(`${replica.url}/apps/jobs/users/u/sessions/${sessionId}`);
    return ((await response.json()) as { events: WireEvent[] }).events;
  }

  /** Polls until `check` holds; fails after `ms`. */
  async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const outputs = (list: WireEvent[]) =>
    list.map((e) =>
      e.errorCode ? `error:${e.errorCode}` : e.author === 'user' ? 'user' : String(e.output).replace(/ by \d+$/, ''),
    );

  it('a second message on the other replica gets 409 SESSION_BUSY; the running turn completes untouched', async () => {
    const [a, b] = await Promise.all([startReplica(), startReplica()]);
    const sessionId = await createSession(a);
    const first = run(a, sessionId, 'one');
    await until('the first turn to start', async () => (await events(b, sessionId)).length >= 1);

    const second = await run(b, sessionId, 'two');
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: 'SESSION_BUSY' } });

    const done = await first;
    expect(done.status).toBe(200);
    expect(outputs(await events(a, sessionId))).toEqual(['user', 's1', 's2', 's3']);
    // The lease was released at the end: the other replica runs the next turn.
    expect((await run(b, sessionId, 'two')).status).toBe(200);
    expect(outputs(await events(a, sessionId))).toEqual(['user', 's1', 's2', 's3', 'user', 's1', 's2', 's3']);
  });

  it('SIGKILL: the other replica resumes the invocation once the lease expires, without repeating finished steps', async () => {
    const [a, b] = await Promise.all([startReplica(), startReplica()]);
    const sessionId = await createSession(a);
    void run(a, sessionId, 'one', 'job-kill').catch(() => undefined);
    await until('step s1 to be stored', async () => outputs(await events(b, sessionId)).includes('s1'));
    a.child.kill('SIGKILL');

    // The dead replica's lease holds until it expires; then the resume goes through.
    const resumed = await resumeOnceFree(b, sessionId, 'job-kill');
    expect(resumed.status).toBe(200);
    await resumed.text(); // the stream ends when the run does
    const stored = await events(b, sessionId);
    expect(outputs(stored)).toEqual(['user', 's1', 's2', 's3']);
    expect(new Set(stored.map((e) => e.invocationId))).toEqual(new Set(['job-kill']));
  });

  it('SIGSTOP past the lease: the other replica takes over; the frozen one wakes and stores nothing', async () => {
    const [a, b] = await Promise.all([startReplica(), startReplica()]);
    const sessionId = await createSession(a);
    const frozenRun = run(a, sessionId, 'one', 'job-freeze');
    await until('step s1 to be stored', async () => outputs(await events(b, sessionId)).includes('s1'));
    a.child.kill('SIGSTOP');

    const resumed = await resumeOnceFree(b, sessionId, 'job-freeze');
    expect(resumed.status).toBe(200);
    await resumed.text();
    expect(outputs(await events(b, sessionId))).toEqual(['user', 's1', 's2', 's3']);

    a.child.kill('SIGCONT');
    // The woken replica finishes its step, is refused (lease lost) and tells its client so.
    const late = await frozenRun;
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: 'LEASE_LOST' } });
    await new Promise((r) => setTimeout(r, STEP_MS * 2));
    const stored = await events(b, sessionId);
    expect(outputs(stored)).toEqual(['user', 's1', 's2', 's3']);
    // Every stored step after the takeover came from the other replica.
    const authorsPid = stored.slice(2).map((e) => String(e.output).replace(/^s\d by /, ''));
    expect(new Set(authorsPid)).toEqual(new Set([String(b.child.pid)]));
  });
});
