import { expect, it } from 'vitest';
import { FunctionAgent, Runner, SequentialAgent, SessionBusyError, type Event } from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import { PostgresSessionService } from '@troupe/postgres';
import { createApp } from '@troupe/server';
import { describePostgres } from '../../packages/postgres/test/pg-test-env.js';
import { usePrivatePostgres } from '../../packages/postgres/test/private-postgres.js';

// Runs in flight while PostgreSQL goes away (a private server, stopped with -m immediate and started
// again): the process keeps running, /health says 503 while the store is down, and afterwards every
// run that was cut short either has its error event stored or can be resumed to the end.
describePostgres('runs across a PostgreSQL restart', () => {
  const server = usePrivatePostgres();

  it('cut runs end failed with an error event, or resume to completion; sessions stay consistent', async () => {
    const pg = server();
    const sessionService = new PostgresSessionService({
      connectionString: pg.url,
      connectTimeoutMs: 1000,
      healthTimeoutMs: 1000,
    });
    const step = (name: string) =>
      new FunctionAgent({
        name,
        run: async () => {
          await new Promise((r) => setTimeout(r, 15));
          return name;
        },
      });
    const job = new SequentialAgent({ name: 'Job', subAgents: [step('s1'), step('s2'), step('s3')] });
    const runner = new Runner({ appName: 'jobs', agent: job, sessionService, leaseTtlMs: 400 });
    const app = createApp({ apps: { jobs: job }, sessionService, healthCheckTimeoutMs: 1500 });

    const sessions = await Promise.all(
      Array.from({ length: 5 }, () => sessionService.createSession({ appName: 'jobs', userId: 'u' })),
    );
    const statuses: string[] = [];
    const failedRuns = new Set<string>();
    let stop = false;
    const load = sessions.map(async (session) => {
      for (let turn = 0; !stop && turn < 200; turn++) {
        try {
          const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: `turn ${turn}` });
          statuses.push(result.status);
          if (result.status === 'failed') failedRuns.add(result.invocationId);
        } catch (error) {
          statuses.push(`rejected:${(error as { code?: string }).code ?? 'ERROR'}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    });

    const completed = () => statuses.filter((s) => s === 'completed').length;
    const cut = () => statuses.filter((s) => s === 'failed' || s.startsWith('rejected:')).length;
    await waitFor(() => completed() >= 10, 'ten completed runs');
    await pg.stop();
    const down = await app.request('/health');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'unavailable' });
    // Runs meet the outage: some fail or are refused while the store is down.
    const cutBefore = cut();
    await waitFor(() => cut() > cutBefore, 'a run to fail or be refused while the store is down');
    await pg.start();
    await waitFor(async () => (await app.request('/health')).status === 200, 'the store to be healthy again', 15_000);
    // And complete again once it is back.
    const completedBefore = completed();
    await waitFor(() => completed() > completedBefore, 'a run to complete after the restart', 15_000);
    stop = true;
    await Promise.all(load);
    // Error records of runs cut while the store was down are stored in the background; wait for them.
    await waitFor(() => sessions.every((x) => !isSessionBusy(sessionService, 'jobs', 'u', x.id)), 'late error records');

    expect(statuses.some((s) => s === 'failed' || s.startsWith('rejected:'))).toBe(true);
    expect(statuses.filter((s) => s !== 'completed' && s !== 'failed' && !s.startsWith('rejected:'))).toEqual([]);

    let stillOpen = 0;
    for (const session of sessions) {
      const stored = (await sessionService.getSession({ appName: 'jobs', userId: 'u', sessionId: session.id }))!;
      for (const [invocationId, events] of byInvocation(stored.events)) {
        expectInOrder(events);
        const recorded = events.some((e) => e.errorCode !== undefined);
        // A run that ended 'failed' after its message was stored has its error record (stored late if the store was down).
        if (failedRuns.has(invocationId)) expect(recorded, `failed run ${invocationId} has an error record`).toBe(true);
        if (recorded || events.at(-1)!.output === 's3') continue;
        stillOpen++;
        // Cut without a record of its end: it must still resume (the only unfinished one is the last).
        expect(invocationId).toBe(stored.events.at(-1)!.invocationId);
        const result = await resumeWhenFree(runner, session.id, invocationId);
        expect(result.status).toBe('completed');
        const after = (await sessionService.getSession({ appName: 'jobs', userId: 'u', sessionId: session.id }))!;
        expectInOrder(byInvocation(after.events).get(invocationId)!);
      }
    }
    // Runs cut without a record can only be each session's last one (a new turn waits for the record).
    expect(stillOpen).toBeLessThanOrEqual(sessions.length);
    await sessionService.close();
  }, 60_000);
});

function byInvocation(events: Event[]): Map<string, Event[]> {
  const out = new Map<string, Event[]>();
  for (const e of events) out.set(e.invocationId, [...(out.get(e.invocationId) ?? []), e]);
  return out;
}

/** One user event, then s1, s2, s3 in order, each at most once, then at most one error record. */
function expectInOrder(events: Event[]): void {
  expect(events[0]!.author).toBe('user');
  const steps = events
    .slice(1)
    .filter((e) => e.errorCode === undefined)
    .map((e) => e.output);
  expect(steps).toEqual(['s1', 's2', 's3'].slice(0, steps.length));
  expect(events.filter((e) => e.errorCode !== undefined).length).toBeLessThanOrEqual(1);
}

async function resumeWhenFree(runner: Runner, sessionId: string, invocationId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await runner.resume({ userId: 'u', sessionId, invocationId });
    } catch (error) {
      // A run whose lease could not be released (the store was down) holds it until it expires.
      if (!(error instanceof SessionBusyError) || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited ${ms} ms for ${what}.`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
