import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Event } from '@troupe/core';
import { SqliteSessionService } from '../src/index.js';
import { startWorker, useTempDb } from './helpers.js';

// SPEC §8: a process that died mid-run is resumed by another with runner.resume({ sessionId,
// invocationId }) and completed steps are not repeated. The worker runs a five-step pipeline
// (FunctionAgents and an LlmAgent, each ~150 ms, each logging its side effect) on the built
// packages; the test kills it with SIGKILL in the middle of a step (one the worker holds until
// then) and resumes in a new process.
const tempDb = useTempDb();
const worker = fileURLToPath(new URL('./fixtures/crash-worker.mjs', import.meta.url));
const key = { appName: 'crash', userId: 'u' };
const STEPS = ['Fetch', 'Clean', 'Summarize', 'Review', 'Publish'];

interface Outcome {
  status: string;
  output?: unknown;
  error: { name: string; message: string } | null;
}

const start = (args: string[]) => {
  const proc = startWorker(worker, args);
  return { ...proc, done: proc.result as Promise<Outcome> };
};

const logLines = (log: string): string[] =>
  existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
const count = (lines: string[], name: string): number => lines.filter((l) => l === name).length;

async function storedEvents(path: string, sessionId: string): Promise<Event[]> {
  const service = new SqliteSessionService({ path });
  try {
    return (await service.getSession({ ...key, sessionId }))!.events;
  } finally {
    await service.close();
  }
}

/** When the session's lease runs out (ms since epoch), read from the file. */
function leaseExpiresAt(path: string, sessionId: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const row = db
      .prepare<[string], { lease_expires_at: number }>('SELECT lease_expires_at FROM sessions WHERE id = ?')
      .get(sessionId);
    return row!.lease_expires_at;
  } finally {
    db.close();
  }
}

/** Whether nobody holds the session's lease now (a killed run's lease holds until it expires). */
function leaseFree(path: string, sessionId: string): boolean {
  return leaseExpiresAt(path, sessionId) <= Date.now();
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('crash and resume in a new process (SQLite)', () => {
  it.each([1, 3])(
    'SIGKILL after %i finished step(s): a new process resumes the invocation; no finished step runs twice, no event is lost or doubled',
    async (finished) => {
      const path = tempDb();
      const log = join(dirname(path), 'side-effects.log');
      const sessionId = `crash-${finished}`;

      // The step after the finished ones works until killed; once it started, their events are stored.
      const first = start(['run', path, sessionId, log, `hold:${STEPS[finished]}`]);
      const exited = first.done.then(
        () => 'finished',
        () => 'killed',
      );
      const holding = first.printed(`holding ${STEPS[finished]}`).then(() => 'holding');
      expect(await Promise.race([holding, exited]), `the worker's state at step ${STEPS[finished]}`).toBe('holding');
      const killedAt = Date.now();
      first.child.kill('SIGKILL');
      expect(await exited).toBe('killed');

      const before = await storedEvents(path, sessionId);
      const loggedBefore = logLines(log);
      const finishedBefore = before.map((e) => e.author).filter((a) => STEPS.includes(a));
      expect(finishedBefore.length).toBeGreaterThanOrEqual(finished);
      expect(finishedBefore.length).toBeLessThan(STEPS.length);
      expect(finishedBefore).toEqual(STEPS.slice(0, finishedBefore.length));
      const invocationId = before[0]!.invocationId;
      expect(before[0]).toMatchObject({
        author: 'user',
        content: { role: 'user', parts: [{ text: 'publish the report' }] },
      });

      // SPEC §12: the killed run's lease outlives it (the worker's runner takes 1 s ones, renewed
      // every third of that), so no other process can take the session over at once; it is free
      // once the lease expires. (Compared with the time of the kill: reading it later may be late.)
      expect(leaseExpiresAt(path, sessionId)).toBeGreaterThan(killedAt);
      await waitFor(() => leaseFree(path, sessionId), "the killed run's lease to expire");
      const resumed = await start(['resume', path, sessionId, log, invocationId]).done;
      expect(resumed).toEqual({ status: 'completed', output: 'Publish done', error: null });

      const ran = logLines(log);
      for (const name of STEPS) {
        if (finishedBefore.includes(name)) expect(count(ran, name), `${name} finished before the kill`).toBe(1);
        // A step killed after its side effect but before its event was stored may run once more.
        else expect(count(ran, name), `${name} had not finished`).toBe(1 + count(loggedBefore, name));
      }

      const after = await storedEvents(path, sessionId);
      expect(new Set(after.map((e) => e.id)).size).toBe(after.length);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.every((e) => e.invocationId === invocationId)).toBe(true);
      expect(after.filter((e) => e.errorCode !== undefined)).toEqual([]);
      expect(after.filter((e) => e.author === 'user' && e.content !== undefined)).toHaveLength(1);
      const stepEvents = after.filter((e) => STEPS.includes(e.author));
      expect(stepEvents.map((e) => e.author)).toEqual(STEPS);
      expect(stepEvents.map((e) => e.output)).toEqual([
        'Fetch done',
        'Clean done',
        'summary of the cleaned data',
        'Review done',
        'Publish done',
      ]);

      const service = new SqliteSessionService({ path });
      const session = (await service.getSession({ ...key, sessionId }))!;
      await service.close();
      expect(session.state).toEqual({
        fetched: 'Fetch done',
        cleaned: 'Clean done',
        summary: 'summary of the cleaned data',
        reviewed: 'Review done',
        published: 'Publish done',
      });
      expect(session.version).toBe(after.length);
    },
  );

  it('two processes running the same session at once: one completes, the other is refused (SessionBusyError) or fails (StaleSessionError); invocations never interleave', async () => {
    const path = tempDb();
    const sessionId = 'contended';
    const service = new SqliteSessionService({ path });
    await service.createSession({ ...key, sessionId });
    await service.close();
    const logs = [join(dirname(path), 'a.log'), join(dirname(path), 'b.log')];
    for (const log of logs) writeFileSync(log, '');
    const workers = logs.map((log) => start(['run', path, sessionId, log, 'sync']));
    await Promise.all(workers.map((w) => w.printed('ready')));
    for (const w of workers) w.send('go\n');
    const outcomes = await Promise.all(workers.map((w) => w.done));

    expect(outcomes.filter((o) => o.status === 'completed')).toHaveLength(1);
    const loser = outcomes.find((o) => o.status !== 'completed')!;
    // With the store's lease the runner refuses the second run before it stores anything; a run
    // that started anyway (no lease) is stopped by the version check at its next append.
    expect([
      ['refused', 'SessionBusyError'],
      ['failed', 'StaleSessionError'],
      ['failed', 'SessionBusyError'],
    ]).toContainEqual([loser.status, loser.error!.name]);

    const events = await storedEvents(path, sessionId);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Each invocation's events are one contiguous block.
    const blocks = events.map((e) => e.invocationId).filter((id, i, all) => i === 0 || all[i - 1] !== id);
    expect(new Set(blocks).size).toBe(blocks.length);
    const winner = events.find((e) => e.author === 'Publish')!.invocationId;
    expect(events.filter((e) => e.invocationId === winner).map((e) => e.author)).toEqual(['user', ...STEPS]);
  });
});
