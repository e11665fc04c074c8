// Takeover after a worker crash: R background runs on N worker processes while the bench SIGKILLs a
// random busy worker K times (a fresh one replaces it each time) and SIGSTOPs one S times until
// every run it held was taken over (longer than the lock), then SIGCONTs it. Reports runs
// completed/failed/abandoned/lost (never ended), duplicate stored events, steps that ran more than
// once (each step appends a line to a log when it runs), and the takeover latency of every run a
// killed worker held: from the SIGKILL to the `started` report with `takeover: true` on another
// worker (RunWorker's onRun hook, which the workers write to a log).
// Usage: npm run build && node bench/chaos.mjs [--runs 300] [--workers 3] [--concurrency 10]
//   [--kills 15] [--stops 2] [--steps 8] [--step-ms 500] [--every-ms 2000] [--lock-ms n] [--stalled-ms n] [--timeout-s 600]
//   TROUPE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/chaos.mjs --pg   (PostgreSQL instead of SQLite)
// --lock-ms and --stalled-ms set the workers' lockDurationMs and stalledIntervalMs (default: RunWorker's);
// `--lock-ms 30000 --stalled-ms 15000` are the defaults before issue #34.
// It starts its own redis-server on a free loopback port (killed by pid at the end) and measures
// the BUILT packages (dist/). Prints one JSON line per measurement on stdout; progress on stderr.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL, fileURLToPath } from 'node:url';
import { startRedis } from './local-services.mjs';
import { quantile, round } from './stats.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');
for (const pkg of ['core', 'sqlite', 'postgres', 'queue']) {
  if (!existsSync(dist(pkg))) {
    console.error(`[chaos] ${dist(pkg)} is missing: run npm run build first.`);
    process.exit(1);
  }
}
const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[chaos]', ...parts);
const emit = (line) => console.log(JSON.stringify({ bench: 'chaos', ...line }));

const { FINAL_RUN_STATUSES } = await import(join(root, 'packages', 'core', 'dist', 'stores', 'index.js'));
const { RunQueue } = await import(dist('queue'));

const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-chaos-'));
const stepLog = join(dir, 'steps.log');
const runLog = join(dir, 'runs.log');
writeFileSync(stepLog, '');
writeFileSync(runLog, '');
/** Every worker process this bench started, live or not, by pid. */
const workers = new Map();
/** A second handle on the store, for the chaos loop's look at what still runs. */
let countStore;
let redisServer;
let schema;
try {
  emit({ measure: 'setup', ...args, pg: args.pg, loadavg_1m: round(loadavg()[0], 2) });
  redisServer = await startRedis(log);
  const redisUrl = `redis://127.0.0.1:${redisServer.port}`;
  const store = await openStore();
  const prefix = 'chaos';
  const workerOptions = {
    redis: redisUrl,
    prefix,
    concurrency: args.concurrency,
    steps: args.steps,
    stepMs: args.stepMs,
    stepLog,
    runLog,
    ...(args.lockMs ? { lockDurationMs: args.lockMs } : {}),
    ...(args.stalledMs ? { stalledIntervalMs: args.stalledMs } : {}),
    ...store.location,
  };
  await Promise.all(Array.from({ length: args.workers }, () => startWorker(workerOptions)));
  const queue = new RunQueue({ redis: redisUrl, sessionService: store, prefix });
  const runs = [];
  for (let i = 0; i < args.runs; i++) {
    const { id: sessionId } = await store.createSession({ appName: 'chaos', userId: 'u' });
    const { runId } = await queue.enqueue({ appName: 'chaos', userId: 'u', sessionId, newMessage: 'go' });
    runs.push({ runId, sessionId });
  }
  log(`${args.runs} runs queued on ${args.workers} workers`);

  const kills = [];
  const stops = [];
  const stopping = [];
  const actions = [...Array(args.kills).fill('kill'), ...Array(args.stops).fill('stop')];
  // Stops spread among the kills, not all at the end.
  for (let i = 0; i < args.stops; i++)
    actions.splice(Math.floor(((i + 1) * args.kills) / (args.stops + 1)) + i, 0, actions.pop());
  const chaosDeadline = Date.now() + args.timeoutS * 1_000;
  for (const action of actions) {
    await sleep(args.everyMs);
    const victim = await busyWorker(chaosDeadline);
    if (!victim) {
      log(`no busy worker left for a ${action}: the runs ended first`);
      break;
    }
    if (action === 'kill') {
      const at = Date.now();
      victim.child.kill('SIGKILL');
      kills.push({ pid: victim.pid, at, runIds: victim.runIds });
      log(`SIGKILL ${victim.pid} holding ${victim.runIds.length} runs (${kills.length}/${args.kills})`);
      await startWorker(workerOptions);
    } else {
      const stop = { pid: victim.pid, at: Date.now(), runIds: victim.runIds };
      stops.push(stop);
      stopping.push(freezeUntilTakenOver(victim, stop, chaosDeadline));
    }
  }
  await Promise.all(stopping);

  const deadline = Date.now() + args.timeoutS * 1_000;
  let ended = [];
  while (Date.now() < deadline) {
    const final = await store.listRuns({ statuses: FINAL_RUN_STATUSES, limit: args.runs + 1 });
    ended = final.filter((r) => FINAL_RUN_STATUSES.includes(r.status));
    if (ended.length >= args.runs) break;
    await sleep(250);
  }
  log(`${ended.length} of ${args.runs} runs ended`);
  const count = (status) => ended.filter((r) => r.status === status).length;
  emit({
    measure: 'runs',
    runs: args.runs,
    completed: count('completed'),
    failed: count('failed'),
    abandoned: count('abandoned'),
    cancelled: count('cancelled'),
    lost: args.runs - ended.length,
  });

  emit({ measure: 'integrity', ...(await integrity(store, runs)) });
  const reports = readReports();
  emit({ measure: 'takeover_after_sigkill', ...latencies(kills, reports) });
  emit({
    measure: 'takeover_after_sigstop',
    ...latencies(stops, reports),
    // A stop that ran into the 180 s bound: nothing was taken over while it was frozen (with SQLite,
    // a worker frozen inside a write transaction holds the file's lock, and every other process waits on it).
    frozen_s: stops.map((stop) => round((stop.wokeAt - stop.at) / 1_000, 1)),
  });
  emit({
    measure: 'reports',
    started: reports.filter((r) => r.kind === 'started' && !r.takeover).length,
    taken_over: reports.filter((r) => r.kind === 'started' && r.takeover).length,
    lost_by_frozen_worker: reports.filter((r) => r.kind === 'lost').length,
    loadavg_1m_end: round(loadavg()[0], 2),
  });
  await queue.close();
  await store.close?.();
} finally {
  for (const { child } of workers.values()) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  }
  if (redisServer && redisServer.exitCode === null) redisServer.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  await dropSchema();
}

/** Freezes a worker until another took over every run it held (so longer than the lock), then wakes it. */
async function freezeUntilTakenOver(victim, stop, deadline) {
  victim.ref.frozen = true;
  victim.child.kill('SIGSTOP');
  log(`SIGSTOP ${victim.pid} holding ${victim.runIds.length} runs`);
  const limit = Math.min(deadline, Date.now() + 180_000);
  while (Date.now() < limit) {
    const reports = readReports();
    const takenOver = stop.runIds.every((runId) =>
      reports.some((r) => r.runId === runId && r.kind === 'started' && r.takeover && r.pid !== victim.pid),
    );
    if (takenOver) break;
    await sleep(200);
  }
  // Awake a while after the takeover: what it does then must be refused, not stored.
  await sleep(1_000);
  victim.child.kill('SIGCONT');
  victim.ref.frozen = false;
  stop.wokeAt = Date.now();
  log(`SIGCONT ${victim.pid} after ${round((stop.wokeAt - stop.at) / 1_000, 1)} s`);
}

/** A live, unfrozen worker that holds at least one run (from the onRun log), at random. */
async function busyWorker(deadline) {
  while (Date.now() < deadline) {
    const held = heldRuns(readReports());
    const busy = [...workers.values()].filter(
      (w) => w.child.exitCode === null && w.child.signalCode === null && !w.frozen && (held.get(w.pid)?.size ?? 0) > 0,
    );
    if (busy.length > 0) {
      const victim = busy[Math.floor(Math.random() * busy.length)];
      return { ...victim, runIds: [...held.get(victim.pid)], ref: victim };
    }
    const anyRunning = await runningCount();
    if (anyRunning === 0) return undefined;
    await sleep(100);
  }
  return undefined;
}

async function runningCount() {
  countStore ??= await openStore({ reuse: true });
  return (await countStore.listRuns({ statuses: ['pending', 'running'], limit: 1 })).length;
}

/** Runs each worker took and has not reported as over, by pid. */
function heldRuns(reports) {
  const held = new Map();
  for (const r of reports) {
    if (!held.has(r.pid)) held.set(r.pid, new Set());
    if (r.kind === 'started') held.get(r.pid).add(r.runId);
    else held.get(r.pid).delete(r.runId);
  }
  return held;
}

function readReports() {
  return readFileSync(runLog, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** Time from the signal to the takeover of each run the worker held; runs never taken over are counted apart. */
function latencies(events, reports) {
  const times = [];
  let notTakenOver = 0;
  for (const event of events) {
    for (const runId of event.runIds) {
      const takeover = reports.find(
        (r) => r.runId === runId && r.kind === 'started' && r.takeover && r.pid !== event.pid && r.at >= event.at,
      );
      if (takeover) times.push(takeover.at - event.at);
      else notTakenOver++;
    }
  }
  const s = (q) => (times.length === 0 ? null : round(quantile(times, q) / 1_000, 1));
  return {
    signals: events.length,
    runs_held: times.length + notTakenOver,
    taken_over: times.length,
    not_taken_over: notTakenOver,
    p50_s: s(0.5),
    p90_s: s(0.9),
    max_s: times.length === 0 ? null : round(times.reduce((a, b) => Math.max(a, b), 0) / 1_000, 1),
  };
}

/** Duplicate stored events and steps that ran more than once. */
async function integrity(store, runs) {
  let duplicateIds = 0;
  let duplicateSteps = 0;
  let missingSteps = 0;
  for (const { runId, sessionId } of runs) {
    const session = await store.getSession({ appName: 'chaos', userId: 'u', sessionId });
    const ids = new Set();
    const steps = new Map();
    for (const event of session.events) {
      if (ids.has(event.id)) duplicateIds++;
      ids.add(event.id);
      if (event.invocationId === runId && event.author.startsWith('step'))
        steps.set(event.author, (steps.get(event.author) ?? 0) + 1);
    }
    for (const n of steps.values()) if (n > 1) duplicateSteps += n - 1;
    missingSteps += args.steps - steps.size;
  }
  const executions = new Map();
  for (const line of readFileSync(stepLog, 'utf8').split('\n')) {
    if (!line) continue;
    const [step, runId] = line.split(' ');
    const key = `${step} ${runId}`;
    executions.set(key, (executions.get(key) ?? 0) + 1);
  }
  let reexecuted = 0;
  for (const n of executions.values()) if (n > 1) reexecuted += n - 1;
  return {
    duplicate_event_ids: duplicateIds,
    duplicate_step_events: duplicateSteps,
    steps_without_event: missingSteps,
    step_executions: [...executions.values()].reduce((a, b) => a + b, 0),
    reexecuted_steps: reexecuted,
  };
}

async function openStore(options = {}) {
  if (args.pg) {
    const { PostgresSessionService } = await import(dist('postgres'));
    const url = process.env.TROUPE_TEST_PG_URL;
    if (!url) throw new Error('--pg needs TROUPE_TEST_PG_URL, e.g. postgres://postgres@127.0.0.1:5432/test');
    if (!options.reuse) schema = `troupe_bench_chaos_${Date.now().toString(36)}`;
    const store = new PostgresSessionService({ connectionString: url, schema });
    store.location = { pg: url, schema };
    return store;
  }
  const { SqliteSessionService } = await import(dist('sqlite'));
  const db = join(dir, 'chaos.db');
  const store = new SqliteSessionService({ path: db });
  store.location = { db };
  return store;
}

/** The bench's PostgreSQL schema goes with it. */
async function dropSchema() {
  await countStore?.close?.();
  if (!schema) return;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.TROUPE_TEST_PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A worker process, once it takes jobs. */
async function startWorker(options) {
  const child = spawn(process.execPath, [join(root, 'bench', 'chaos-worker.mjs'), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  workers.set(child.pid, { pid: child.pid, child, frozen: false });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const deadline = Date.now() + 20_000;
  while (!out.includes('ready')) {
    if (child.exitCode !== null) throw new Error(`worker ${child.pid} exited before it was ready`);
    if (Date.now() > deadline) throw new Error(`worker ${child.pid} was not ready within 20 s`);
    await sleep(20);
  }
}

function parseArgs(argv) {
  const parsed = {
    runs: 300,
    workers: 3,
    concurrency: 10,
    kills: 15,
    stops: 2,
    steps: 8,
    stepMs: 500,
    everyMs: 2_000,
    lockMs: undefined,
    stalledMs: undefined,
    timeoutS: 600,
    pg: false,
  };
  const numeric = {
    '--runs': 'runs',
    '--workers': 'workers',
    '--concurrency': 'concurrency',
    '--kills': 'kills',
    '--stops': 'stops',
    '--steps': 'steps',
    '--step-ms': 'stepMs',
    '--every-ms': 'everyMs',
    '--lock-ms': 'lockMs',
    '--stalled-ms': 'stalledMs',
    '--timeout-s': 'timeoutS',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--pg') parsed.pg = true;
    else if (numeric[flag]) {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} is ${argv[i]}; use a whole number.`);
      parsed[numeric[flag]] = value;
    } else throw new Error(`Unknown option ${flag}. Use ${Object.keys(numeric).join(' n, ')} n, --pg.`);
  }
  return parsed;
}
