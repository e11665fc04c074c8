// The cost of the queue: 200 background runs of a 3-step instant agent on 2 worker processes ×
// concurrency 10, next to the same 200 runs in-request (a Runner in this process, 20 at a time, on
// the same kind of store). On the queue, 20 callers each do what the server's `/run` does: enqueue,
// then follow the run's live stream to its end. Reports start latency (asked → first event seen,
// p50/p95), runs/s and CPU ms per run by process (this one, the workers, redis-server, PostgreSQL's
// backends) for both, their ratio, and Redis memory before, after the runs, and after the live
// streams' TTL.
// Usage: npm run build && node bench/queue.mjs [--runs 200] [--workers 2] [--concurrency 10]
//   TROUPE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/queue.mjs --pg   (PostgreSQL instead of SQLite)
//   [--delay-ms 1]: PostgreSQL and Redis behind a proxy adding that much to each round trip.
//   [--direct]: no proxies (no round-trip counts): the proxies run in this process and use its CPU.
// With --pg, every connection to PostgreSQL goes through a proxy that counts round trips
// (server-load/pg-proxy.mjs); Redis commands are counted from INFO stats. Both per run.
// It starts its own redis-server on a free loopback port (killed by pid at the end) and measures
// the BUILT packages (dist/). Prints one JSON line per measurement on stdout; progress on stderr.
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, fileURLToPath } from 'node:url';
import { threeStepAgent } from './queue-agent.mjs';
import { startPgProxy, startTcpProxy } from './server-load/pg-proxy.mjs';
import { startRedis } from './local-services.mjs';
import { cpuWindow } from './proc-cpu.mjs';
import { quantile, round } from './stats.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');
for (const pkg of ['core', 'sqlite', 'postgres', 'queue']) {
  if (!existsSync(dist(pkg))) {
    console.error(`[queue] ${dist(pkg)} is missing: run npm run build first.`);
    process.exit(1);
  }
}
const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[queue]', ...parts);
const emit = (line) => console.log(JSON.stringify({ bench: 'queue', ...line }));
const STREAM_TTL_MS = 2_000;

const core = await import(dist('core'));
// The run statuses live in the stores entry point, not the main one.
const { FINAL_RUN_STATUSES } = await import(join(root, 'packages', 'core', 'dist', 'stores', 'index.js'));
const { RunQueue } = await import(dist('queue'));
const { Redis } = await import('ioredis');

const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-queue-'));
const children = [];
const pgSchemas = [];
let redisProxy;
let pgProxy;
let redisServer;
try {
  redisServer = await startRedis(log);
  redisProxy = await startTcpProxy({ host: '127.0.0.1', port: redisServer.port, delayMs: args.delayMs });
  if (args.pg) {
    const upstream = new URL(process.env.TROUPE_TEST_PG_URL ?? 'postgres://127.0.0.1:5432/');
    pgProxy = await startPgProxy({
      host: upstream.hostname,
      port: Number(upstream.port || 5432),
      delayMs: args.delayMs,
    });
  }
  const inRequest = await measureInRequest();
  emit({ measure: 'in_request', runs: args.runs, concurrency: args.workers * args.concurrency, ...inRequest });
  const queued = await measureQueued();
  emit({ measure: 'queued', runs: args.runs, workers: args.workers, concurrency: args.concurrency, ...queued.figures });
  emit({
    measure: 'queue_cost',
    start_p95_ratio: round(queued.figures.start_p95_ms / inRequest.start_p95_ms, 1),
    runs_per_s_ratio: round(inRequest.runs_per_s / queued.figures.runs_per_s, 2),
  });
  emit({ measure: 'redis_memory', ...queued.memory });
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await redisProxy?.close();
  await pgProxy?.close();
  if (redisServer && redisServer.exitCode === null) redisServer.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas();
}

/** The bench's PostgreSQL schemas go with it. */
async function dropSchemas() {
  if (pgSchemas.length === 0) return;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.TROUPE_TEST_PG_URL });
  await client.connect();
  try {
    for (const schema of pgSchemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The same agent in this process: start = the run's first event, runs/s over the whole batch. */
async function measureInRequest() {
  const sessionService = await openStore('in_request');
  const runner = new core.Runner({ appName: 'bench', agent: threeStepAgent(core), sessionService });
  const sessions = [];
  for (let i = 0; i < args.runs; i++)
    sessions.push((await sessionService.createSession({ appName: 'bench', userId: 'u' })).id);
  const starts = [];
  pgProxy?.reset();
  const cpu = await cpuMeter({ label: 'in_request' });
  const began = performance.now();
  await pool(sessions, args.workers * args.concurrency, async (sessionId) => {
    const asked = performance.now();
    let first = true;
    for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: 'go' })) {
      if (first && event.author !== 'user') {
        starts.push(performance.now() - asked);
        first = false;
      }
    }
  });
  const seconds = (performance.now() - began) / 1_000;
  const cpuMs = await cpu.perRun(args.runs);
  const pgRoundTrips = pgProxy?.counts.roundTrips;
  await sessionService.close?.();
  return {
    start_p50_ms: round(quantile(starts, 0.5), 2),
    start_p95_ms: round(quantile(starts, 0.95), 2),
    runs_per_s: round(args.runs / seconds, 1),
    cpu_ms_per_run: cpuMs,
    ...(pgRoundTrips === undefined ? {} : { pg_round_trips_per_run: round(pgRoundTrips / args.runs, 1) }),
  };
}

/** Each caller enqueues a run and follows it to its end; start = the first event the caller sees. */
async function measureQueued() {
  const store = await openStore('queued');
  const prefix = 'bench';
  const redisUrl = `redis://127.0.0.1:${args.direct ? redisServer.port : redisProxy.port}`;
  const queue = new RunQueue({ redis: redisUrl, sessionService: store, prefix });
  const admin = new Redis(redisUrl);
  const sessions = [];
  for (let i = 0; i < args.runs; i++) sessions.push((await store.createSession({ appName: 'bench', userId: 'u' })).id);
  const workerOptions = {
    redis: redisUrl,
    prefix,
    concurrency: args.concurrency,
    streamTtlMs: STREAM_TTL_MS,
    ...store.location,
  };
  await Promise.all(
    Array.from({ length: args.workers }, () => startChild(join(root, 'bench', 'queue-worker.mjs'), workerOptions)),
  );
  const baseline = await usedMemory(admin);
  // Counted from here: what the runs cost, not the workers' start (their polling is in it, as in production).
  const commandsBefore = await processedCommands(admin);
  pgProxy?.reset();
  const cpu = await cpuMeter({ label: 'queued', workers: children.map((c) => c.pid), redis: redisServer.pid });

  // As many callers as the in-request side has, each doing what the server's `/run` does on a
  // queue: enqueue, then follow the run's live stream to its end.
  const starts = [];
  const began = performance.now();
  // eslint-disable-next-line no-undef -- a global of Node's, not a module's export
  const bounded = AbortSignal.timeout(120_000);
  setMaxListeners(Infinity, bounded);
  await pool(sessions, args.workers * args.concurrency, async (sessionId) => {
    const asked = performance.now();
    const { runId } = await queue.enqueue({ appName: 'bench', userId: 'u', sessionId, newMessage: 'go' });
    let first = true;
    for await (const entry of queue.join(runId, { signal: bounded })) {
      if (first && entry.event) {
        starts.push(performance.now() - asked);
        first = false;
      }
    }
  });
  if (bounded.aborted) throw new Error(`the ${args.runs} runs did not finish within 120 s`);
  const seconds = (performance.now() - began) / 1_000;
  const cpuMs = await cpu.perRun(args.runs);
  // The admin's own INFO is not the runs'.
  const redisCommands = (await processedCommands(admin)) - commandsBefore - 1;
  const pgRoundTrips = pgProxy?.counts.roundTrips;
  const finished = await store.listRuns({ statuses: FINAL_RUN_STATUSES });
  const notCompleted = finished.filter((r) => r.status !== 'completed');
  if (finished.length < args.runs || notCompleted.length > 0)
    throw new Error(
      `${args.runs - finished.length + notCompleted.length} runs did not complete: ${JSON.stringify(notCompleted[0])}`,
    );
  const afterRuns = await usedMemory(admin);
  await sleep(STREAM_TTL_MS + 1_000);
  const afterTtl = await usedMemory(admin);
  const keysLeft = await admin.dbsize();
  for (const child of children) child.kill('SIGTERM');
  await queue.close();
  admin.disconnect();
  await store.close?.();
  return {
    figures: {
      start_p50_ms: round(quantile(starts, 0.5), 1),
      start_p95_ms: round(quantile(starts, 0.95), 1),
      runs_per_s: round(args.runs / seconds, 1),
      cpu_ms_per_run: cpuMs,
      completed: finished.length,
      redis_commands_per_run: round(redisCommands / args.runs, 1),
      ...(pgRoundTrips === undefined ? {} : { pg_round_trips_per_run: round(pgRoundTrips / args.runs, 1) }),
    },
    memory: {
      baseline_kb: round(baseline / 1024, 0),
      after_runs_kb: round(afterRuns / 1024, 0),
      after_stream_ttl_kb: round(afterTtl / 1024, 0),
      keys_left: keysLeft,
      stream_ttl_ms: STREAM_TTL_MS,
    },
  };
}

async function openStore(label) {
  if (args.pg) {
    const { PostgresSessionService } = await import(dist('postgres'));
    const url = process.env.TROUPE_TEST_PG_URL;
    if (!url) throw new Error('--pg needs TROUPE_TEST_PG_URL, e.g. postgres://postgres@127.0.0.1:5432/test');
    const schema = `troupe_bench_queue_${label}_${Date.now().toString(36)}`;
    pgSchemas.push(schema);
    // Through the counting proxy, for this process and the workers alike.
    const proxied = new URL(url);
    if (!args.direct) {
      proxied.hostname = '127.0.0.1';
      proxied.port = String(pgProxy.port);
    }
    // Names the phase's PostgreSQL backends, whose CPU the phase counts (cpuMeter).
    proxied.searchParams.set('application_name', `troupe-bench-queue-${label}`);
    const store = new PostgresSessionService({ connectionString: proxied.href, schema });
    store.location = { pg: proxied.href, schema };
    return store;
  }
  const { SqliteSessionService } = await import(dist('sqlite'));
  const db = join(dir, `${label}.db`);
  const store = new SqliteSessionService({ path: db });
  store.location = { db };
  return store;
}

/**
 * CPU milliseconds per run over a phase, by process: this one (the callers; in-request, the runs
 * too), the workers, redis-server, and the phase's PostgreSQL backends (named by application_name).
 */
async function cpuMeter({ label, workers = [], redis }) {
  const backends = () => (args.pg ? pgBackendPids(`troupe-bench-queue-${label}`) : []);
  const own = process.cpuUsage();
  const others = { workers: cpuWindow(), redis: cpuWindow(), pg: cpuWindow() };
  others.workers.start(workers);
  if (redis) others.redis.start([redis]);
  others.pg.start(await backends());
  return {
    async perRun(runs) {
      const used = process.cpuUsage(own);
      const ms = (seconds) => round((seconds * 1_000) / runs, 2);
      const figures = {
        bench: ms((used.user + used.system) / 1e6),
        workers: ms(others.workers.end(workers)),
        redis: ms(redis ? others.redis.end([redis]) : 0),
        pg: ms(others.pg.end(await backends())),
      };
      return {
        ...figures,
        total: round(
          Object.values(figures).reduce((a, b) => a + b, 0),
          2,
        ),
      };
    },
  };
}

async function pgBackendPids(applicationName) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.TROUPE_TEST_PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      applicationName,
    ]);
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

async function processedCommands(client) {
  const info = await client.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)[1]);
}

async function usedMemory(client) {
  const info = await client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)[1]);
}

async function startChild(script, options) {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const deadline = Date.now() + 20_000;
  while (!out.includes('ready')) {
    if (child.exitCode !== null) throw new Error(`${script} exited before it was ready`);
    if (Date.now() > deadline) throw new Error(`${script} was not ready within 20 s`);
    await sleep(20);
  }
}

async function pool(items, size, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function parseArgs(argv) {
  const parsed = { runs: 200, workers: 2, concurrency: 10, pg: false, delayMs: 0, direct: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--pg') parsed.pg = true;
    else if (['--runs', '--workers', '--concurrency'].includes(flag)) parsed[flag.slice(2)] = Number(argv[++i]);
    else if (flag === '--delay-ms') parsed.delayMs = Number(argv[++i]);
    else if (flag === '--direct') parsed.direct = true;
    else
      throw new Error(
        `Unknown option ${flag}. Use --runs n, --workers n, --concurrency n, --pg, --delay-ms n, --direct.`,
      );
  }
  if (parsed.direct && parsed.delayMs > 0)
    throw new Error('--direct bypasses the proxies that add --delay-ms: use one of them.');
  return parsed;
}
