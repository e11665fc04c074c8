// Per-run costs of the production path, for the capacity model (docs/capacity.md, issue #34).
// It runs the real CLI processes on PostgreSQL and Redis: `troupe worker <apps> --pg --redis`
// workers and `troupe api <apps> --pg --redis` replicas (with --workers 0, replicas running the runs
// in their requests: `troupe api --pg` without Redis), the weather app of the server benchmark (one
// LlmAgent with one tool, an instant fake model: 2 model calls, 4 stored events per run), and a load
// client (server-load/client.mjs: 50 keep-alive clients, each request a new session then one POST
// /run, round-robin over the replicas). Over the measured window (30 s after a 5 s warm-up) it
// reads, before and after: statements and round trips at a counting proxy in front of PostgreSQL
// (one for the replicas, one for the workers), WAL bytes (pg_current_wal_lsn), the database's
// row counters, Redis commands (INFO commandstats) and used_memory (sampled every 250 ms), and the
// CPU time of every process from /proc/<pid>/stat (replicas, workers, client, redis-server,
// PostgreSQL backends of the bench's database, the server's WAL writer/checkpointer/bgwriter);
// after it, table and index bytes per stored row. Every figure is divided by the runs stored in
// the window (sessions created, one run each) and by the events.
//
// PostgreSQL: TROUPE_TEST_PG_URL (or --pg URL); a new database per run (`troupe api --pg` uses a
// fixed schema), dropped at the end. Redis: its own redis-server on a free loopback port. Every
// child is stopped by its pid. Measures the BUILT CLI (packages/cli/dist: npm run build first).
// Prints one JSON line per measurement on stdout; progress on stderr.
//
// Usage: node bench/capacity.mjs [--replicas 2] [--workers 3] [--concurrency 10] [--clients 50]
//        [--warmup 5] [--seconds 30] [--pg URL] [--no-proxy] [--trace]
// --trace: instead of the load, the SQL of one request (after three uncounted ones), per role.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, fileURLToPath } from 'node:url';
import { freePort, listsApp, startRedis } from './local-services.mjs';
import { startPgProxy } from './server-load/pg-proxy.mjs';
import { requester } from './server-load/requests.mjs';
import { round } from './stats.mjs';
import {
  backendPids,
  pgSnapshot,
  storedRows,
  tableSizes,
  walByDatabase,
  walBytesBetween,
} from './capacity/pg-stats.mjs';
import { cpuSeconds, cpuTracker } from './capacity/proc.mjs';
import { startNode, stopAll, waitUntil } from './capacity/processes.mjs';
import { redisDiff, redisSnapshot, sampleKeyMemory } from './capacity/redis-stats.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const cli = join(benchDir, '..', 'packages', 'cli', 'dist', 'main.js');
const APP = 'weather';
const SCHEMA = 'troupe'; // what `troupe api --pg` and `troupe worker --pg` use
const APPLICATION_NAME = 'troupe'; // the store's pools' application_name
const READY_MS = 60_000;
const STOP_GRACE_MS = 20_000; // longer than a worker's 10 s grace period
const SAMPLE_MS = 250;

const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[capacity]', ...parts);
const emit = (line) => console.log(JSON.stringify({ bench: 'capacity', ...line }));
if (!existsSync(cli)) {
  log(`${cli} is missing: run npm run build first.`);
  process.exit(1);
}
if (!args.pg) {
  log('PostgreSQL is needed: set TROUPE_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) or pass --pg URL.');
  process.exit(1);
}

const { default: pg } = await import('pg');
const { Redis } = await import('ioredis');
const work = mkdtempSync(join(tmpdir(), 'troupe-capacity-'));
const database = `troupe_bench_capacity_${Date.now().toString(36)}`;
const children = [];
const proxies = {};
let redisServer;
let redis;
let server;
let bench;
const loadStart = loadavg().map((x) => round(x, 2));
try {
  server = new pg.Client({ connectionString: args.pg });
  await server.connect();
  await server.query(`CREATE DATABASE "${database}"`);
  const { rows: settings } = await server.query(
    `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit', 'full_page_writes', 'wal_level', 'shared_buffers', 'max_connections')`,
  );
  emit({
    measure: 'setup',
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavg_start: loadStart,
    replicas: args.replicas,
    workers: args.workers,
    concurrency: args.workers > 0 ? args.concurrency : null,
    clients: args.clients,
    warmup_s: args.warmup,
    seconds: args.seconds,
    proxy: args.proxy,
    postgres: Object.fromEntries(settings.map((s) => [s.name, s.setting])),
  });

  const redisUrl = args.workers > 0 ? await startOwnRedis() : undefined;
  const apiPg = await storeUrl('api');
  const workerPg = args.workers > 0 ? await storeUrl('worker') : undefined;
  const apps = appsFolder();

  for (let i = 0; i < args.workers; i++) {
    const worker = startNode(
      'worker',
      [cli, 'worker', apps, '--pg', workerPg, '--redis', redisUrl, '--concurrency', String(args.concurrency)],
      work,
    );
    children.push(worker);
    await waitUntil(worker, async () => worker.output().includes('Troupe worker ready'), 'ready', READY_MS);
  }
  const urls = [];
  for (let i = 0; i < args.replicas; i++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const argv = [cli, 'api', apps, '--host', '127.0.0.1', '--port', String(port), '--pg', apiPg];
    if (redisUrl) argv.push('--redis', redisUrl);
    const api = startNode('api', argv, work);
    children.push(api);
    await waitUntil(api, () => listsApp(url, APP, 10_000), 'listing the app', READY_MS);
    urls.push(url);
  }
  log(`${args.replicas} API replica(s), ${args.workers} worker(s) ready; database ${database}`);
  // The app loads on its first run: one checked request per replica before the clients start.
  for (const url of urls) await requester({ url, app: APP, route: 'run', agent: new http.Agent() })('primer');

  if (args.trace) await traceOneRequest(urls[0]);
  else {
    bench = new pg.Client({ connectionString: withDatabase(args.pg, database) });
    await bench.connect();
    // To tell the bench's WAL from other databases' (the server may be shared).
    await bench.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    report(await measureWindow(urls));
  }
} finally {
  await stopAll(children, STOP_GRACE_MS);
  for (const proxy of Object.values(proxies)) await proxy.close();
  redis?.disconnect();
  if (redisServer && redisServer.exitCode === null) {
    redisServer.kill('SIGKILL');
    await new Promise((resolve) => redisServer.once('exit', resolve));
  }
  await bench?.end();
  if (server) {
    await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await server.end();
  }
  rmSync(work, { recursive: true, force: true });
}
emit({ measure: 'loadavg', start: loadStart, end: loadavg().map((x) => round(x, 2)) });

// ---- the measured window ----------------------------------------------------------------------

/**
 * Starts the client, reads every counter when it opens and closes the measured window, samples
 * Redis memory and the PostgreSQL backends in between, then the state left after the runs.
 */
async function measureWindow(urls) {
  const pgBackends = cpuTracker();
  const pgAuxiliary = cpuTracker();
  const observeBackends = async () => {
    const { backends, auxiliary } = await backendPids(server, database, APPLICATION_NAME);
    pgBackends.observe(backends);
    pgAuxiliary.observe(auxiliary);
  };
  const redisBaseline = redis ? await redisSnapshot(redis) : undefined;
  const client = startNode(
    'client',
    [
      join(benchDir, 'server-load', 'client.mjs'),
      JSON.stringify({
        urls,
        app: APP,
        route: 'run',
        clients: args.clients,
        warmup: args.warmup,
        seconds: args.seconds,
      }),
    ],
    work,
  );
  children.push(client);
  const snapshot = async () => {
    // The synchronous readings first, at the same instant.
    const cpu = cpuByRole(client);
    const proxy = Object.fromEntries(Object.entries(proxies).map(([role, p]) => [role, { ...p.counts }]));
    const machine = machineCpu();
    const at = performance.now();
    await observeBackends();
    const [pgCounters, rows, redisCounters] = await Promise.all([
      pgSnapshot(server, database),
      storedRows(bench, SCHEMA),
      redis ? redisSnapshot(redis) : undefined,
    ]);
    return { cpu, proxy, machine, at, pg: pgCounters, rows, redis: redisCounters };
  };

  let start;
  let end;
  let sampler;
  let peakMemory = redisBaseline?.usedMemory ?? 0;
  const sample = async () => {
    await observeBackends();
    if (redis) peakMemory = Math.max(peakMemory, (await redisSnapshot(redis)).usedMemory);
  };
  const windowDone = new Promise((resolve, reject) => {
    let buffered = '';
    client.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line === 'window-start') {
          log('window open');
          start = snapshot();
          sampler = setInterval(() => void sample().catch(reject), SAMPLE_MS);
        } else if (line === 'window-end') {
          clearInterval(sampler);
          end = snapshot();
          log('window closed');
        } else if (line.startsWith('{')) resolve(JSON.parse(line));
      }
    });
    client.exited.then(({ code }) => {
      clearInterval(sampler);
      reject(new Error(`the load client exited (${code}) without its result: ${client.output().slice(-800)}`));
    });
  });
  const deadline = sleep((args.warmup + args.seconds + 60) * 1000).then(() => {
    throw new Error('the load client did not finish within its window + 60 s');
  });
  const result = await Promise.race([windowDone, deadline]);
  const before = await start;
  const after = await end;
  // What stays after the runs: every request had its answer, so every run has ended.
  await sleep(1_000);
  const afterRuns = redis ? await redisSnapshot(redis) : undefined;
  const streams = redis ? await sampleKeyMemory(redis, 'troupe:run:*:events', 50) : undefined;
  const tables = await tableSizes(bench, SCHEMA);
  const walBytes = await walBytesBetween(server, before.pg.lsn, after.pg.lsn);
  const ownCommits = after.pg.xact_commit - before.pg.xact_commit;
  const wal = await walByDatabase(
    bench,
    before.pg.lsn,
    after.pg.lsn,
    ownCommits,
    ownCommits + after.pg.other_commits - before.pg.other_commits,
  );
  return {
    result,
    before,
    after,
    walBytes,
    wal,
    redisBaseline,
    peakMemory,
    afterRuns,
    streams,
    tables,
    pgBackends,
    pgAuxiliary,
  };
}

/** CPU seconds so far of our processes, summed by role; the bench's own (its proxies) as `bench`. */
function cpuByRole(client) {
  const byRole = { api: 0, worker: 0, client: cpuSeconds(client.pid) ?? 0 };
  for (const child of children) if (child.role !== 'client') byRole[child.role] += cpuSeconds(child.pid) ?? 0;
  if (redisServer) byRole.redis = cpuSeconds(redisServer.pid) ?? 0;
  const { user, system } = process.cpuUsage();
  byRole.bench = (user + system) / 1e6;
  return byRole;
}

/** The machine's busy and total CPU time (every process, ours or not), in seconds, from /proc/stat. */
function machineCpu() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = fields[3] + fields[4];
  return { busy: (total - idle) / 100, total: total / 100 };
}

// ---- the figures -------------------------------------------------------------------------------

function report({
  result,
  before,
  after,
  walBytes,
  wal,
  redisBaseline,
  peakMemory,
  afterRuns,
  streams,
  tables,
  pgBackends,
  pgAuxiliary,
}) {
  const seconds = (after.at - before.at) / 1000;
  const runs = after.rows.sessions - before.rows.sessions;
  const events = after.rows.events - before.rows.events;
  const per = (value, n, digits = 2) => (n > 0 ? round(value / n, digits) : null);
  emit({
    measure: 'throughput',
    runs_per_s: result.reqPerSec,
    requests: result.requests,
    per_replica: result.perReplica,
    p50_ms: result.p50Ms,
    p99_ms: result.p99Ms,
    max_ms: result.maxMs,
    errors: result.errors,
    ...(result.errorSamples.length ? { error_samples: result.errorSamples } : {}),
    window_s: round(seconds, 2),
    runs_stored: runs,
    events_stored: events,
    events_per_run: per(events, runs),
    run_records_stored: after.rows.runs - before.rows.runs,
  });

  const roundTrips = {};
  const statements = {};
  for (const role of Object.keys(after.proxy)) {
    roundTrips[role] = after.proxy[role].roundTrips - before.proxy[role].roundTrips;
    statements[role] = after.proxy[role].statements - before.proxy[role].statements;
  }
  const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
  const d = (field) => after.pg[field] - before.pg[field];
  emit({
    measure: 'postgres',
    ...(args.proxy
      ? {
          statements_per_run: per(sum(statements), runs),
          round_trips_per_run: per(sum(roundTrips), runs),
          statements_per_run_by_role: Object.fromEntries(
            Object.keys(statements).map((r) => [r, per(statements[r], runs)]),
          ),
          round_trips_per_run_by_role: Object.fromEntries(
            Object.keys(roundTrips).map((r) => [r, per(roundTrips[r], runs)]),
          ),
          statements_per_s: round(sum(statements) / seconds, 0),
          connections: Object.fromEntries(Object.entries(after.proxy).map(([r, c]) => [r, c.connections])),
        }
      : { statements_per_run: null, note: '--no-proxy: statements not counted' }),
    commits_per_run: per(d('xact_commit'), runs),
    rows_inserted_per_run: per(d('tup_inserted'), runs),
    rows_updated_per_run: per(d('tup_updated'), runs),
    rows_deleted_per_run: per(d('tup_deleted'), runs),
    rows_fetched_per_run: per(d('tup_fetched'), runs),
  });

  // The bench's share of the WAL: its own relations' records, and its share of the commit records.
  const ownWal = Math.round(walBytes * wal.share);
  emit({
    measure: 'wal',
    // pg_wal_lsn_diff of pg_current_wal_lsn() at the window's ends: every database's WAL.
    wal_bytes_server: walBytes,
    own_share: round(wal.share, 3),
    wal_bytes: ownWal,
    wal_bytes_per_run: per(ownWal, runs, 0),
    wal_bytes_per_event: per(ownWal, events, 0),
    wal_mb_per_s: round(ownWal / seconds / 1e6, 2),
    wal_records_per_run: per(wal.ownRecords, runs, 1),
    full_page_images_per_run: per(wal.ownFpiRecords, runs, 2),
    full_page_image_bytes_per_run: per(wal.ownFpiBytes, runs, 0),
    checkpoints_in_window: d('checkpoints'),
    other_databases_commits: d('other_commits'),
  });

  const byTable = Object.fromEntries(tables.map((t) => [t.table, t]));
  const bytesPer = (name, n) => (byTable[name] && n > 0 ? round(byTable[name].total_bytes / n, 0) : null);
  const sessionsLeft = byTable.sessions?.rows ?? 0;
  const eventsLeft = byTable.events?.rows ?? 0;
  const allBytes = tables.reduce((a, t) => a + t.total_bytes, 0);
  emit({
    measure: 'storage',
    sessions: sessionsLeft,
    events: eventsLeft,
    total_bytes: allBytes,
    bytes_per_session_all_tables: per(allBytes, sessionsLeft, 0),
    events_bytes_per_event: bytesPer('events', eventsLeft),
    sessions_bytes_per_session: bytesPer('sessions', sessionsLeft),
    runs_bytes_per_run_record: bytesPer('runs', byTable.runs?.rows ?? 0),
    tables,
    note: 'pg_total_relation_size (heap + indexes + TOAST) after the run, without VACUUM',
  });

  if (redis) {
    const r = redisDiff(before.redis, after.redis);
    const top = Object.entries(r.byCommand)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([name, n]) => [name, per(n, runs, 2)]);
    emit({
      measure: 'redis',
      commands_per_run: per(r.commands, runs, 1),
      script_calls_per_run: per(r.scripts, runs, 1),
      commands_per_s: round(r.commands / seconds, 0),
      connections_received_per_run: per(r.connectionsReceived, runs, 2),
      top_commands_per_run: Object.fromEntries(top),
      used_memory_kb: {
        before_clients: round(redisBaseline.usedMemory / 1024, 0),
        window_start: round(before.redis.usedMemory / 1024, 0),
        window_end: round(after.redis.usedMemory / 1024, 0),
        peak: round(peakMemory / 1024, 0),
        after_runs: round(afterRuns.usedMemory / 1024, 0),
      },
      memory_growth_bytes_per_run: per(after.redis.usedMemory - before.redis.usedMemory, runs, 0),
      keys: { window_start: before.redis.keys, window_end: after.redis.keys, after_runs: afterRuns.keys },
      keys_per_run: per(after.redis.keys - before.redis.keys, runs, 2),
      run_stream_memory_usage_bytes: streams.meanBytes,
      run_streams_sampled: streams.keys,
    });
  }

  const roles = Object.keys(after.cpu);
  const cpu = Object.fromEntries(roles.map((role) => [role, after.cpu[role] - before.cpu[role]]));
  cpu.pg_backends = pgBackends.total();
  cpu.pg_auxiliary = pgAuxiliary.total();
  const machineBusy = after.machine.busy - before.machine.busy;
  const machineTotal = after.machine.total - before.machine.total;
  emit({
    measure: 'cpu',
    cpu_ms_per_run: Object.fromEntries(Object.entries(cpu).map(([role, s]) => [role, per(s * 1000, runs, 3)])),
    cores_busy: Object.fromEntries(Object.entries(cpu).map(([role, s]) => [role, round(s / seconds, 2)])),
    processes: { api: args.replicas, worker: args.workers, pg_backends: pgBackends.processes() },
    machine_cores_busy: round(machineBusy / seconds, 2),
    // Everything else the machine ran meanwhile (the machine is shared).
    other_processes_cores_busy: round((machineBusy - Object.values(cpu).reduce((a, b) => a + b, 0)) / seconds, 2),
    machine_busy_fraction: round(machineBusy / machineTotal, 3),
    note: 'bench = this process (the counting proxies and the readings); pg_auxiliary = the server-wide WAL writer, checkpointer and background writer',
  });
}

// ---- setup helpers ------------------------------------------------------------------------------

async function startOwnRedis() {
  redisServer = await startRedis(log);
  const url = `redis://127.0.0.1:${redisServer.port}`;
  redis = new Redis(url);
  return url;
}

/**
 * One request on its own, its statements listed per role as the proxies saw them (one line each,
 * whitespace folded, cut at 160 characters). Three uncounted requests first; the workers' last
 * statements may land after the answer, so it waits half a second before reading.
 */
async function traceOneRequest(url) {
  const oneRequest = requester({ url, app: APP, route: 'run', agent: new http.Agent({ keepAlive: true }) });
  for (let i = 0; i < 3; i++) await oneRequest('traced');
  await sleep(500);
  for (const proxy of Object.values(proxies)) proxy.reset();
  await oneRequest('traced');
  await sleep(500);
  const sql = Object.fromEntries(
    Object.entries(proxies).map(([role, proxy]) => [role, proxy.sql.map((q) => q.replace(/\s+/g, ' ').slice(0, 160))]),
  );
  emit({ measure: 'trace', statements: Object.fromEntries(Object.entries(sql).map(([r, q]) => [r, q.length])), sql });
}

/** The bench database's URL for a role: through a counting proxy of its own, unless --no-proxy. */
async function storeUrl(role) {
  const url = new URL(withDatabase(args.pg, database));
  if (!args.proxy) return url.href;
  proxies[role] = await startPgProxy({ host: url.hostname, port: Number(url.port || 5432), trace: args.trace });
  url.hostname = '127.0.0.1';
  url.port = String(proxies[role].port);
  return url.href;
}

/** The apps folder: `weather/agent.mjs` re-exporting the server benchmark's agent. */
function appsFolder() {
  const dir = join(work, 'apps');
  mkdirSync(join(dir, APP), { recursive: true });
  const source = join(benchDir, 'server-load', 'troupe-agent.mjs');
  writeFileSync(join(dir, APP, 'agent.mjs'), `export { rootAgent } from ${JSON.stringify(source)};\n`);
  return dir;
}

function withDatabase(connectionString, name) {
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  return url.href;
}

function parseArgs(argv) {
  const out = {
    replicas: 2,
    workers: 3,
    concurrency: 10,
    clients: 50,
    warmup: 5,
    seconds: 30,
    pg: process.env.TROUPE_TEST_PG_URL || undefined,
    proxy: true,
    trace: false,
  };
  const usage =
    'use --replicas n, --workers n (0: runs in the API requests, no Redis), --concurrency n, --clients n, --warmup s, --seconds s, --pg URL, --no-proxy, --trace';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (['--replicas', '--workers', '--concurrency', '--clients', '--warmup', '--seconds'].includes(flag)) {
      const value = Number(argv[++i]);
      if (!(Number.isFinite(value) && value >= 0)) throw new Error(`${flag} ${argv[i]}: not a number ≥ 0; ${usage}`);
      out[flag.slice(2)] = value;
    } else if (flag === '--pg') out.pg = argv[++i];
    else if (flag === '--no-proxy') out.proxy = false;
    else if (flag === '--trace') out.trace = true;
    else throw new Error(`unknown argument ${flag}; ${usage}`);
  }
  for (const name of ['replicas', 'clients', 'concurrency'])
    if (!(Number.isInteger(out[name]) && out[name] >= 1)) throw new Error(`--${name} must be a whole number ≥ 1`);
  if (!Number.isInteger(out.workers)) throw new Error('--workers must be a whole number ≥ 0');
  if (out.trace && !out.proxy) throw new Error('--trace reads the SQL at the proxies: leave out --no-proxy');
  if (!(out.seconds > 0)) throw new Error('--seconds must be > 0');
  return out;
}
