/**
 * Load test of the HTTP API (not part of `vitest run`):
 *
 *   npx tsx packages/server/test/load.ts
 *
 * 50 clients, each on its own session, run a small multi-agent app (a coordinator that transfers
 * to a worker, both answered instantly by a fake model) against `serve()` on 127.0.0.1 for 30 s,
 * half through `POST /run`, half through `POST /run_sse`. It reports requests/s, latency
 * percentiles and errors (which must be 0), then checks that every session holds exactly
 * completed runs × events per run, and compares the heap (after GC) before and after.
 *
 * Environment: LOAD_DURATION_MS (default 30000), LOAD_CLIENTS (default 50).
 * Exits non-zero when a request failed or a session's event count is off.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BaseLlm, InMemorySessionService, LlmAgent, type LlmRequest, type LlmResponse } from '@troupe/core';
import { createApp, serve, type WireEvent, type WireSession } from '../src/index.js';

const DURATION_MS = Number(process.env.LOAD_DURATION_MS ?? 30_000);
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 50);

/** A model that answers at once with what `respond` says: no network, no timers. */
class InstantModel extends BaseLlm {
  constructor(
    name: string,
    private readonly respond: (request: LlmRequest) => LlmResponse,
  ) {
    super(name);
  }

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse> {
    yield this.respond(request);
  }
}

let callIds = 0;
const worker = new LlmAgent({
  name: 'worker',
  description: 'Answers the question.',
  model: new InstantModel('fake-worker', () => ({
    content: { role: 'model', parts: [{ text: 'Done: the worker answered.' }] },
    usage: { inputTokens: 10, outputTokens: 5 },
    turnComplete: true,
  })),
  // The next turn then starts at the coordinator again, so every run has the same shape.
  disallowTransferToParent: true,
  disallowTransferToPeers: true,
});
const coordinator = new LlmAgent({
  name: 'coordinator',
  instruction: 'Route the question to the worker.',
  model: new InstantModel('fake-coordinator', () => ({
    content: {
      role: 'model',
      parts: [{ functionCall: { id: `t${++callIds}`, name: 'transfer_to_agent', args: { agent_name: 'worker' } } }],
    },
    usage: { inputTokens: 10, outputTokens: 3 },
    turnComplete: true,
  })),
  subAgents: [worker],
});

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function heapMb(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const sessionService = new InMemorySessionService();
  const app = createApp({ apps: { load: coordinator }, sessionService });
  const handle = await serve(app, { host: '127.0.0.1', port: 0 });
  const post = (path: string, body: unknown) =>
    fetch(`${handle.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  const clients = Array.from({ length: CLIENTS }, (_, i) => ({
    sessionId: `load-${i}`,
    sse: i % 2 === 1,
    runs: 0,
    errors: [] as string[],
  }));
  for (const client of clients) {
    const res = await post('/apps/load/users/bench/sessions', { sessionId: client.sessionId });
    if (res.status !== 200) throw new Error(`creating ${client.sessionId} failed with ${res.status}`);
  }

  /** One turn; returns the events the client received (all of them final: streaming is off). */
  async function turn(client: (typeof clients)[number]): Promise<WireEvent[]> {
    const body = {
      appName: 'load',
      userId: 'bench',
      sessionId: client.sessionId,
      newMessage: { role: 'user', parts: [{ text: 'What is the answer?' }] },
      streaming: false,
    };
    const res = await post(client.sse ? '/run_sse' : '/run', body);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    const events = client.sse
      ? text
          .split('\n\n')
          .filter((frame) => frame !== '')
          .map((frame) => {
            if (!frame.startsWith('data: ') || frame.includes('\n'))
              throw new Error(`bad SSE frame: ${frame.slice(0, 100)}`);
            return JSON.parse(frame.slice(6)) as WireEvent;
          })
      : (JSON.parse(text) as WireEvent[]);
    const failed = events.find((e) => e.errorCode);
    if (failed) throw new Error(`run failed: ${failed.errorCode} ${failed.errorMessage}`);
    return events;
  }

  // Warm-up: one turn per client (it also measures the events of one run), then the baseline heap.
  await Promise.all(
    clients.map(async (client) => {
      await turn(client);
      client.runs++;
    }),
  );
  const shape = await turn(clients[0]!);
  clients[0]!.runs++;
  const eventsPerRun = shape.length + 1; // + the user's message, stored but not streamed
  const heapBefore = heapMb();

  const latencies: number[] = [];
  const deadline = Date.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < deadline) {
        const t0 = performance.now();
        try {
          const events = await turn(client);
          if (events.length + 1 !== eventsPerRun)
            throw new Error(`a run produced ${events.length} events, expected ${eventsPerRun - 1}`);
          client.runs++;
        } catch (error) {
          client.errors.push((error as Error).message);
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;

  // Every completed run stored exactly its events; nothing else was stored.
  const mismatches: string[] = [];
  let storedEvents = 0;
  for (const client of clients) {
    const res = await fetch(`${handle.url}/apps/load/users/bench/sessions/${client.sessionId}`);
    const session = (await res.json()) as WireSession;
    storedEvents += session.events!.length;
    if (session.events!.length !== client.runs * eventsPerRun)
      mismatches.push(`${client.sessionId}: ${session.events!.length} events for ${client.runs} runs`);
  }
  const heapAfter = heapMb();
  for (const client of clients) {
    const res = await fetch(`${handle.url}/apps/load/users/bench/sessions/${client.sessionId}`, { method: 'DELETE' });
    if (res.status !== 204) mismatches.push(`${client.sessionId}: DELETE answered ${res.status} ${await res.text()}`);
  }
  const left = (await sessionService.listSessions({ appName: 'load', userId: 'bench' })).sessions.length;
  if (left !== 0) mismatches.push(`${left} sessions left after deleting them all`);
  await handle.close();
  const heapAfterDelete = heapMb();

  latencies.sort((a, b) => a - b);
  const errors = clients.flatMap((c) => c.errors);
  const requests = latencies.length;
  const report = {
    clients: CLIENTS,
    durationS: Number(seconds.toFixed(1)),
    requests,
    requestsPerSecond: Math.round(requests / seconds),
    runsCompleted: clients.reduce((n, c) => n + c.runs, 0),
    latencyMs: {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
    },
    errors: errors.length,
    eventsPerRun,
    storedEvents,
    sessionCountMismatches: mismatches.length,
    heapMb: { beforeLoad: heapBefore, afterLoadSessionsKept: heapAfter, afterSessionsDeleted: heapAfterDelete },
  };
  const round = (_: string, value: unknown) =>
    typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(2)) : value;
  console.log(JSON.stringify(report, round, 2));
  if (errors.length > 0) console.error('first errors:', errors.slice(0, 5));
  if (mismatches.length > 0) console.error('mismatches:', mismatches.slice(0, 5));
  process.exitCode = errors.length === 0 && mismatches.length === 0 ? 0 : 1;
}

await main();
