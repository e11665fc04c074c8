import { afterAll, beforeAll, expect, it } from 'vitest';
import { FunctionAgent, SequentialAgent } from '@troupe/core';
import { isSessionBusy } from '@troupe/core/hosting';
import { PostgresSessionService } from '@troupe/postgres';
import { createApp, type ErrorBody } from '@troupe/server';
import {
  PG_URL,
  adminQuery,
  describePostgres,
  dropSchema,
  requirePostgres,
  uniqueSchema,
} from '../../packages/postgres/test/pg-test-env.js';

// `/run` under PostgreSQL faults (backends ended with pg_terminate_backend while runs go on, as a
// failover does): a connection lost during a COMMIT that went through fails the write though it
// landed, and /run answered 503 STORAGE for runs whose events were stored, so a client retrying the
// 503 ran the work twice. Now a 503 STORAGE means nothing of the run is stored, and a run that
// stored part of itself answers 500 RUN_OUTCOME_UNKNOWN naming its invocation.
describePostgres('/run answers while PostgreSQL backends are terminated', () => {
  const schema = uniqueSchema('run_answers');
  const applicationName = `troupe-test-run-answers-${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(requirePostgres);
  afterAll(async () => {
    if (PG_URL !== '') await dropSchema(schema);
  });

  it('no 503 STORAGE for a run with stored events; RUN_OUTCOME_UNKNOWN names the invocation', async () => {
    const options = { connectionString: PG_URL, schema, applicationName, connectTimeoutMs: 2000 };
    const sessionService = new PostgresSessionService(options);
    const step = (name: string) =>
      new FunctionAgent({
        name,
        run: async () => {
          await new Promise((r) => setTimeout(r, 5));
          return `${name} done`;
        },
      });
    const job = new SequentialAgent({ name: 'job', subAgents: [step('s1'), step('s2')] });
    const app = createApp({ apps: { jobs: job }, sessionService, onError: () => undefined });

    const sessions = await Promise.all(
      Array.from({ length: 6 }, () => sessionService.createSession({ appName: 'jobs', userId: 'u' })),
    );
    const answers: { sessionId: string; invocationId: string; status: number; code?: string; named?: string }[] = [];
    let killing = true;
    let killed = 0;
    const killer = (async () => {
      while (killing) {
        killed += await terminate(applicationName);
        await new Promise((r) => setTimeout(r, 60 + Math.random() * 60));
      }
    })();
    const deadline = Date.now() + 8_000;
    try {
      await Promise.all(
        sessions.map(async (session, i) => {
          for (let turn = 0; Date.now() < deadline; turn++) {
            const invocationId = `s${i}-t${turn}`;
            const res = await app.request('/run', {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({
                appName: 'jobs',
                userId: 'u',
                sessionId: session.id,
                invocationId,
                newMessage: { role: 'user', parts: [{ text: `turn ${turn}` }] },
              }),
            });
            const body = (await res.json()) as ErrorBody | unknown[];
            const error = Array.isArray(body) ? undefined : body.error;
            answers.push({
              sessionId: session.id,
              invocationId,
              status: res.status,
              ...(error ? { code: error.code } : {}),
              ...(error?.invocationId ? { named: error.invocationId } : {}),
            });
            // A session held by the claim of a run whose end is still being stored: wait a little.
            if (res.status === 409) await new Promise((r) => setTimeout(r, 50));
          }
        }),
      );
    } finally {
      killing = false;
      await killer;
    }
    expect(killed).toBeGreaterThan(0);
    await waitFor(() => sessions.every((s) => !isSessionBusy(sessionService, 'jobs', 'u', s.id)));

    const reader = new PostgresSessionService({ connectionString: PG_URL, schema });
    try {
      const stored = new Map<string, Set<string>>();
      for (const session of sessions) {
        const read = await reader.getSession({ appName: 'jobs', userId: 'u', sessionId: session.id });
        stored.set(session.id, new Set(read!.events.map((e) => e.invocationId)));
      }
      const lies = answers.filter(
        (a) => a.status === 503 && a.code === 'STORAGE' && stored.get(a.sessionId)!.has(a.invocationId),
      );
      expect(lies, 'runs answered 503 STORAGE although events of them are stored').toEqual([]);
      for (const answer of answers.filter((a) => a.code === 'RUN_OUTCOME_UNKNOWN')) {
        expect(answer.status).toBe(500);
        expect(answer.named).toBe(answer.invocationId);
      }
      for (const answer of answers.filter((a) => a.status === 200)) {
        expect(stored.get(answer.sessionId)!.has(answer.invocationId), `${answer.invocationId} answered 200`).toBe(
          true,
        );
      }
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    } finally {
      await reader.close();
      await sessionService.close();
    }
  }, 60_000);
});

/**
 * Ends every backend named `applicationName`; returns how many. The pids are chosen first, in a
 * materialized CTE, so that no other connection on the server is ended.
 */
async function terminate(applicationName: string): Promise<number> {
  return (
    await adminQuery<{ pid: number }>(
      'WITH mine AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()) SELECT pid FROM mine WHERE pg_terminate_backend(pid)',
      [applicationName],
    )
  ).length;
}

async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`A session was still busy after ${ms} ms.`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
