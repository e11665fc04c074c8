import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StaleSessionError, createEvent, textOf } from '@troupe/core';
import { SqliteSessionService } from '../src/index.js';
import { startWorker, useTempDb } from './helpers.js';

const tempDb = useTempDb();
const worker = fileURLToPath(new URL('./fixtures/append-worker.mjs', import.meta.url));
const key = { appName: 'app', userId: 'alice' };

const startChild = (args: string[]) => {
  const proc = startWorker(worker, args);
  return { ...proc, result: proc.result as Promise<Record<string, unknown>> };
};

describe('two processes on one SQLite file', () => {
  it('a copy read before another process appended is stale: the stale writer gets StaleSessionError and stores nothing', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const created = await service.createSession(key);
    const mine = (await service.getSession({ ...key, sessionId: created.id }))!;

    expect(await startChild([path, key.appName, key.userId, created.id, 'once']).result).toEqual({ version: 1 });

    await expect(
      service.appendEvent({
        session: mine,
        event: createEvent({ author: 'parent', content: { role: 'model', parts: [{ text: 'from parent' }] } }),
      }),
    ).rejects.toBeInstanceOf(StaleSessionError);
    const got = (await service.getSession({ ...key, sessionId: created.id }))!;
    expect(got.events.map(textOf)).toEqual(['from child']);
    expect(got.state).toEqual({ who: 'child' });
    expect(got.version).toBe(1);
    await service.close();
  });

  it('the other process is the stale writer when this one appended after it read', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const created = await service.createSession(key);
    const child = startChild([path, key.appName, key.userId, created.id, 'stale']);
    await child.printed('ready');

    await service.appendEvent({
      session: created,
      event: createEvent({
        author: 'parent',
        content: { role: 'model', parts: [{ text: 'from parent' }] },
        actions: { stateDelta: { who: 'parent' } },
      }),
    });
    child.send('go\n');
    const result = await child.result;
    expect(result.error).toBe('StaleSessionError');
    expect(result.message).toMatch(/version 0, the store at 1/);

    const got = (await service.getSession({ ...key, sessionId: created.id }))!;
    expect(got.events.map(textOf)).toEqual(['from parent']);
    expect(got.state).toEqual({ who: 'parent' });
    await service.close();
  });

  it('two processes incrementing one counter concurrently lose no update and interleave nothing', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const created = await service.createSession({ ...key, state: { count: 0 } });
    const perProcess = 150;
    const child = startChild([path, key.appName, key.userId, created.id, 'count', String(perProcess)]);
    await child.printed('ready');
    child.send('go\n');

    for (let done = 0; done < perProcess;) {
      const session = (await service.getSession({ ...key, sessionId: created.id }))!;
      const count = session.state.count as number;
      try {
        await service.appendEvent({
          session,
          event: createEvent({ author: 'parent', actions: { stateDelta: { count: count + 1 } } }),
        });
        done++;
      } catch (error) {
        if (!(error instanceof StaleSessionError)) throw error;
      }
      // Let the child's output and exit be handled while we loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const childResult = await child.result;

    const got = (await service.getSession({ ...key, sessionId: created.id }))!;
    expect(got.state.count).toBe(2 * perProcess);
    expect(got.version).toBe(2 * perProcess);
    expect(got.events).toHaveLength(2 * perProcess);
    // Each stored event increments the one before it: no write was based on a stale read.
    expect(got.events.map((e) => e.actions.stateDelta.count)).toEqual(
      Array.from({ length: 2 * perProcess }, (_, i) => i + 1),
    );
    expect(got.events.filter((e) => e.author === 'child')).toHaveLength(perProcess);
    // How often each side retried depends on scheduling (typically a few dozen times); what matters is the count above.
    expect(childResult.retries).toEqual(expect.any(Number));
    await service.close();
  });
});

describe('session leases across processes on one SQLite file', () => {
  it('processes racing for one lease at the same moment: exactly one gets it', async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const created = await service.createSession(key);
    const owners = ['p1', 'p2', 'p3', 'p4'];
    const children = owners.map((owner) => startChild([path, key.appName, key.userId, created.id, 'race', owner]));
    await Promise.all(children.map((c) => c.printed('ready')));
    for (const c of children) c.send('go\n');
    const leases = (await Promise.all(children.map((c) => c.result))).map(
      (r) => r.lease as { owner: string; epoch: number } | null,
    );

    const winners = leases.filter((l) => l !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ sessionId: created.id, epoch: 1 });
    expect(owners).toContain(winners[0]!.owner);
    expect(
      await service.leaseSession({ ...key, sessionId: created.id, owner: 'parent', ttlMs: 30_000 }),
    ).toBeUndefined();
    await service.close();
  });

  it("a killed process's lease holds until its time to live runs out, then another process takes it over with a higher epoch", async () => {
    const path = tempDb();
    const service = new SqliteSessionService({ path });
    const created = await service.createSession(key);
    // Long enough that the check right after the kill is inside it even on a busy machine.
    const ttlMs = 3_000;
    const leasedBefore = Date.now();
    const holder = startChild([path, key.appName, key.userId, created.id, 'hold', String(ttlMs)]);
    const ended = holder.result.catch(() => 'killed');
    await holder.printed('leased 1');
    holder.child.kill('SIGKILL');
    expect(await ended).toBe('killed');

    const lease = { ...key, sessionId: created.id, owner: 'parent', ttlMs: 30_000 };
    expect(await service.leaseSession(lease)).toBeUndefined();
    // Taken over as soon as the dead process's lease ran out, and not before.
    let taken: Awaited<ReturnType<SqliteSessionService['leaseSession']>>;
    for (const deadline = Date.now() + 15_000; !(taken = await service.leaseSession(lease));) {
      if (Date.now() > deadline) throw new Error("The killed process's lease did not expire within 15 s.");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.now() - leasedBefore).toBeGreaterThanOrEqual(ttlMs);
    expect(taken).toMatchObject({ owner: 'parent', epoch: 2 });
    await service.close();
  });
});
