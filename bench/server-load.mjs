// HTTP load test of the API server (bench-scenarios.md, `server`), on 127.0.0.1 only. For each target
// it starts the server under test as a child process the way its CLI starts it, drives it from a
// separate node process (server-load/client.mjs: N concurrent keep-alive clients, each request = a
// new session then one run of an LlmAgent that calls a tool and answers: 2 model calls, 4 stored
// events, instant fake model), samples the server's VmRSS every 100 ms, reads VmHWM at the end, and
// stops the server by its pid. Prints a table; writes bench/results/server-load.json.
//
// Targets: Troupe (`troupe api <apps> --memory | --db <file> | --pg <url>`) on /run and /run_sse;
// with --peers also ADK JS's `adk api_server` (@google/adk-devtools in bench/peers, in-memory sessions).
// PostgreSQL: --pg URL or TROUPE_TEST_PG_URL; the run gets a fresh database, dropped afterwards.
// `--pg` alone measures PostgreSQL only: Troupe and its floor (server-load/pg-floor.mjs: plain
// node:http + pg doing the same durable writes in the fewest round trips), both through a proxy
// (server-load/pg-proxy.mjs) that counts round trips and statements per request and, with
// `--pg-delays 0,1,5`, adds that many milliseconds to each round trip (a database on another host).
//
// Usage: npm run bench:server [-- --clients 50 --seconds 10 --warmup 2 --stores memory,sqlite,pg
//        --routes run,run_sse --pg [URL] --pg-delays 0,1,5 --peers --only troupe,adk,floor]
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { setTimeout as sleep } from 'node:timers/promises';
import { clearInterval, setInterval } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { ensurePeersInstalled, peersDir } from './peers/install.mjs';
import { freePort, listsApp } from './local-services.mjs';
import { startPgProxy } from './server-load/pg-proxy.mjs';
import { requester } from './server-load/requests.mjs';
import { round } from './stats.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const root = join(benchDir, '..');
const log = (...parts) => console.error('[server-load]', ...parts);
const args = parseArgs(process.argv.slice(2));
const APP = 'weather';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const work = mkdtempSync(join(tmpdir(), 'troupe-server-load-'));
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg: { start: loadavg().map((x) => round(x, 2)) },
  clients: args.clients,
  warmup: args.warmup,
  seconds: args.seconds,
  results: [],
  skipped: [],
};
try {
  const targets = await planTargets();
  for (const target of targets) {
    for (const route of args.routes) {
      log(`${target.name} ${route}: starting the server`);
      const result = await measure(target, route);
      report.results.push(result);
      log(
        `${target.name} ${route}: ${result.error ? `FAILED ${result.error}` : `${result.reqPerSec} req/s, p50 ${result.p50Ms} ms, errors ${result.errors}`}`,
      );
    }
    await target.cleanup?.();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
report.loadavg.end = loadavg().map((x) => round(x, 2));
printTable();
mkdirSync(join(benchDir, 'results'), { recursive: true });
writeFileSync(join(benchDir, 'results', 'server-load.json'), `${JSON.stringify(report, null, 2)}\n`);
log('wrote bench/results/server-load.json');
if (report.results.some((r) => r.error || r.errors > 0)) process.exitCode = 1;

// ---- targets ---------------------------------------------------------------------------------

/**
 * A server on PostgreSQL, reached through a counting (and, with `delayMs`, delaying) proxy, on a
 * fresh database per measurement (`troupe api --pg` uses its fixed schema), dropped afterwards.
 */
function pgTarget(name, framework, delayMs, argvOf) {
  const databases = [];
  const target = {
    name,
    framework,
    store: 'pg',
    delayMs,
    prepare: async (port) => {
      const database = `troupe_bench_load_${Date.now().toString(36)}_${databases.length}`;
      databases.push(database);
      await pgQuery(`CREATE DATABASE "${database}"`);
      const upstream = new URL(args.pg);
      target.proxy = await startPgProxy({ host: upstream.hostname, port: Number(upstream.port || 5432), delayMs });
      return argvOf(port, proxiedUrl(database, target.proxy.port));
    },
    afterStop: async () => {
      await target.proxy?.close();
      target.proxy = undefined;
    },
    cleanup: async () => {
      for (const database of databases) await pgQuery(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    },
  };
  return target;
}

function proxiedUrl(database, port) {
  const url = new URL(withDatabase(args.pg, database));
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.href;
}

/** The servers to measure: { name, framework, store, start(port) → argv, cleanup? }. */
async function planTargets() {
  const targets = [];
  if (args.only.includes('troupe')) {
    const apps = appsFolder('troupe', 'agent.mjs', join(benchDir, 'server-load', 'troupe-agent.mjs'));
    const cli = join(root, 'packages', 'cli', 'dist', 'main.js');
    const troupe = (store, storeArgs) => ({
      name: `troupe ${store}`,
      framework: 'troupe',
      store,
      argv: (port) => [cli, 'api', apps, '--host', '127.0.0.1', '--port', String(port), ...storeArgs()],
    });
    if (args.stores.includes('memory')) targets.push(troupe('memory', () => ['--memory']));
    if (args.stores.includes('sqlite')) {
      // A new file per measurement, as the scenario asks for a fresh server each time.
      let n = 0;
      targets.push(troupe('sqlite', () => ['--db', join(work, `sessions-${++n}.db`)]));
    }
  }
  if (args.stores.includes('pg') && (args.only.includes('troupe') || args.only.includes('floor'))) {
    if (!args.pg) {
      const reason = 'PostgreSQL: no --pg URL and TROUPE_TEST_PG_URL is not set';
      report.skipped.push({ target: 'troupe pg', reason });
      log(`skipping troupe pg: ${reason}`);
    } else {
      const apps = appsFolder('troupe', 'agent.mjs', join(benchDir, 'server-load', 'troupe-agent.mjs'));
      const cli = join(root, 'packages', 'cli', 'dist', 'main.js');
      const floor = join(benchDir, 'server-load', 'pg-floor.mjs');
      for (const delayMs of args.pgDelays) {
        const suffix = delayMs > 0 ? ` +${delayMs}ms` : '';
        if (args.only.includes('troupe'))
          targets.push(
            pgTarget(`troupe pg${suffix}`, 'troupe', delayMs, (port, url) => [
              cli,
              'api',
              apps,
              '--host',
              '127.0.0.1',
              '--port',
              String(port),
              '--pg',
              url,
            ]),
          );
        if (args.only.includes('floor'))
          targets.push(pgTarget(`floor pg${suffix}`, 'floor', delayMs, (port, url) => [floor, String(port), url]));
      }
    }
  }
  if (args.peers && args.only.includes('adk')) {
    ensurePeersInstalled(log);
    const apps = appsFolder('adk', 'agent.mjs', join(peersDir, 'adk-weather-agent.mjs'));
    const cli = join(peersDir, 'node_modules', '@google', 'adk-devtools', 'dist', 'esm', 'cli_entrypoint.js');
    targets.push({
      name: 'adk memory',
      framework: 'adk',
      store: 'memory',
      // Default log levels on both sides: each server logs as its CLI does out of the box.
      argv: (port) => [
        cli,
        'api_server',
        apps,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--session_service_uri',
        'memory://',
      ],
      cwd: peersDir,
    });
  }
  return targets;
}

/** An apps folder with the one app `weather` whose entry re-exports the agent module `source`. */
function appsFolder(framework, entry, source) {
  const dir = join(work, `${framework}-apps`);
  mkdirSync(join(dir, APP), { recursive: true });
  writeFileSync(join(dir, APP, entry), `export { rootAgent } from ${JSON.stringify(source)};\n`);
  return dir;
}

// ---- one measurement -------------------------------------------------------------------------

async function measure(target, route) {
  const result = { target: target.name, framework: target.framework, store: target.store, route };
  const port = await freePort();
  const argv = target.prepare ? await target.prepare(port) : target.argv(port);
  const server = spawn(process.execPath, argv, {
    cwd: target.cwd ?? work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  const keep = (chunk) => {
    output.push(String(chunk));
    if (output.length > 50) output.shift();
  };
  server.stdout.on('data', keep);
  server.stderr.on('data', keep);
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  let sampler;
  try {
    await waitReady(url, exited, output);
    // Ready also means loaded: Troupe loads an app on its first run, ADK on /list-apps. One checked
    // request (session + run) before the clients start keeps that out of the warm-up.
    await requester({ url, app: APP, route, agent: new http.Agent() })('primer');
    if (target.proxy) Object.assign(result, await countRoundTrips(target.proxy, url, route));
    let peakRssKb = readStatusKb(server.pid, 'VmRSS');
    // Besides the peak, the RSS every 30 s: a long run (--seconds 600) shows whether memory stays flat.
    const rssTimelineMb = [];
    let samples = 0;
    sampler = setInterval(() => {
      const rss = readStatusKb(server.pid, 'VmRSS');
      if (rss > peakRssKb) peakRssKb = rss;
      if (samples++ % 300 === 0) rssTimelineMb.push(round(rss / 1024, 1));
    }, 100);
    result.rssTimelineMb = rssTimelineMb;
    const client = await runClient({
      url,
      app: APP,
      route,
      clients: args.clients,
      warmup: args.warmup,
      seconds: args.seconds,
    });
    clearInterval(sampler);
    Object.assign(result, client, {
      peakRssMb: round(peakRssKb / 1024, 1),
      hwmRssMb: round(readStatusKb(server.pid, 'VmHWM') / 1024, 1),
    });
  } catch (error) {
    result.error = error.message;
    result.serverOutput = output.join('').slice(-2000);
  } finally {
    clearInterval(sampler);
    await stop(server, exited);
    await target.afterStop?.();
  }
  return result;
}

/** Round trips and statements to PostgreSQL per request: 20 requests one after another, counted at the proxy. */
async function countRoundTrips(proxy, url, route) {
  const oneRequest = requester({ url, app: APP, route, agent: new http.Agent({ keepAlive: true }) });
  const n = 20;
  proxy.reset();
  for (let i = 0; i < n; i++) await oneRequest('counted');
  return {
    roundTripsPerRequest: round(proxy.counts.roundTrips / n, 2),
    statementsPerRequest: round(proxy.counts.statements / n, 2),
    delayMs: proxy.delayMs,
  };
}

/** Polls GET /list-apps until it answers 200 with the app, the server exits, or the time is up. */
async function waitReady(url, exited, output) {
  let gone;
  exited.then((status) => (gone = status));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited (${JSON.stringify(gone)}): ${output.join('').slice(-800)}`);
    if (await listsApp(url, APP)) return;
    await sleep(100);
  }
  throw new Error(`the server did not list the app '${APP}' within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Runs the load client in its own process; resolves its JSON line. */
function runClient(options) {
  const timeout = (options.warmup + options.seconds + 60) * 1000;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(benchDir, 'server-load', 'client.mjs'), JSON.stringify(options)],
      { timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const line = stdout.trim().split('\n').at(-1);
        if (error || !line?.startsWith('{'))
          reject(new Error(`load client failed: ${error?.message ?? ''} ${stderr.trim().slice(-500)}`));
        else resolve(JSON.parse(line));
      },
    );
  });
}

/** SIGTERM, then SIGKILL if it has not exited within STOP_TIMEOUT_MS (only our own child, by pid). */
async function stop(server, exited) {
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.kill('SIGTERM');
  const timer = sleep(STOP_TIMEOUT_MS).then(() => 'timeout');
  if ((await Promise.race([exited, timer])) === 'timeout') {
    server.kill('SIGKILL');
    await exited;
  }
}

/** A field of /proc/<pid>/status in kB (0 when unreadable, e.g. not Linux). */
function readStatusKb(pid, field) {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

// ---- PostgreSQL ------------------------------------------------------------------------------

function withDatabase(connectionString, database) {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.href;
}

/** One statement on the server of --pg (pg from the workspace, as @troupe/postgres uses it). */
async function pgQuery(sql) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: args.pg });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// ---- output ----------------------------------------------------------------------------------

function printTable() {
  const header = [
    'target',
    'route',
    'req/s',
    'p50 ms',
    'p99 ms',
    'max ms',
    'errors',
    'peak RSS MB',
    'VmHWM MB',
    'pg rt/req',
  ];
  const widths = [18, 8, 9, 9, 9, 9, 7, 12, 9, 9];
  const pad = (v, w) => String(v).padStart(w);
  console.log(
    `HTTP load: ${args.clients} keep-alive clients, ${args.seconds} s after a ${args.warmup} s warm-up; one request = new session + one run (2 model calls, 1 tool call, 4 events); 127.0.0.1`,
  );
  console.log(header.map((h, i) => pad(h, widths[i])).join(' '));
  console.log(widths.map((w) => '-'.repeat(w)).join(' '));
  for (const r of report.results) {
    const cells = r.error
      ? [r.target, r.route, 'FAILED', '', '', '', '', '', '', '']
      : [
          r.target,
          r.route,
          r.reqPerSec,
          r.p50Ms,
          r.p99Ms,
          r.maxMs,
          r.errors,
          r.peakRssMb,
          r.hwmRssMb,
          r.roundTripsPerRequest ?? '',
        ];
    console.log(cells.map((c, i) => pad(c, widths[i])).join(' '));
  }
  for (const [troupe, adk] of args.routes.map((route) => [
    report.results.find((r) => r.target === 'troupe memory' && r.route === route && !r.error),
    report.results.find((r) => r.target === 'adk memory' && r.route === route && !r.error),
  ])) {
    if (troupe && adk)
      console.log(
        `${troupe.route}: Troupe/ADK (in-memory) throughput ${round(troupe.reqPerSec / adk.reqPerSec, 2)}×, p50 ${round(adk.p50Ms / troupe.p50Ms, 2)}× faster, peak RSS ${round(troupe.peakRssMb / adk.peakRssMb, 2)}× of ADK's`,
      );
  }
  for (const troupe of report.results.filter((r) => r.framework === 'troupe' && r.store === 'pg' && !r.error)) {
    const floor = report.results.find(
      (r) => r.framework === 'floor' && r.route === troupe.route && r.delayMs === troupe.delayMs && !r.error,
    );
    if (floor)
      console.log(
        `${troupe.route}, PostgreSQL +${troupe.delayMs ?? 0} ms: Troupe/floor throughput ${round(troupe.reqPerSec / floor.reqPerSec, 2)}×, p50 ${round(troupe.p50Ms / floor.p50Ms, 2)}× the floor's; round trips per request ${troupe.roundTripsPerRequest} vs ${floor.roundTripsPerRequest}, statements ${troupe.statementsPerRequest} vs ${floor.statementsPerRequest}`,
      );
  }
  for (const r of report.results.filter((x) => x.error)) console.log(`FAILED ${r.target} ${r.route}: ${r.error}`);
  for (const r of report.results.filter((x) => x.errorSamples?.length))
    console.log(`errors in ${r.target} ${r.route}: ${JSON.stringify(r.errorSamples)}`);
  for (const s of report.skipped) console.log(`skipped ${s.target}: ${s.reason}`);
  console.log(
    `load average ${report.loadavg.start.join(' ')} at start, ${report.loadavg.end.join(' ')} at end (${cpus().length} cpu(s); the client shares the machine: indicative numbers)`,
  );
}

function parseArgs(argv) {
  const out = {
    clients: 50,
    seconds: 10,
    warmup: 2,
    stores: ['memory', 'sqlite', 'pg'],
    routes: ['run', 'run_sse'],
    pg: process.env.TROUPE_TEST_PG_URL || undefined,
    pgDelays: [0],
    peers: false,
    only: ['troupe', 'adk', 'floor'],
  };
  const list = (value, allowed, flag) => {
    const items = value.split(',');
    for (const item of items)
      if (!allowed.includes(item))
        throw new Error(`${flag} ${item}: unknown; use a comma list of ${allowed.join(', ')}`);
    return items;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--clients') out.clients = Number(argv[++i]);
    else if (a === '--seconds') out.seconds = Number(argv[++i]);
    else if (a === '--warmup') out.warmup = Number(argv[++i]);
    else if (a === '--stores') out.stores = list(argv[++i], ['memory', 'sqlite', 'pg'], '--stores');
    else if (a === '--routes') out.routes = list(argv[++i], ['run', 'run_sse'], '--routes');
    else if (a === '--only') {
      out.only = list(argv[++i], ['troupe', 'adk', 'floor'], '--only');
      if (out.only.includes('adk')) out.peers = true; // naming the peer asks for it
    } else if (a === '--pg') {
      // `--pg` alone: PostgreSQL only (Troupe and the floor), on TROUPE_TEST_PG_URL.
      if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) out.pg = argv[++i];
      out.stores = ['pg'];
    } else if (a === '--pg-delays') {
      out.pgDelays = argv[++i].split(',').map(Number);
      if (out.pgDelays.some((d) => !(d >= 0))) throw new Error('--pg-delays takes milliseconds ≥ 0, e.g. 0,1,5');
    } else if (a === '--peers') out.peers = true;
    else
      throw new Error(
        `unknown argument ${a}; use --clients N, --seconds S, --warmup S, --stores memory,sqlite,pg, --routes run,run_sse, --only troupe,adk,floor, --pg [URL], --pg-delays 0,1,5, --peers`,
      );
  }
  if (!(Number.isInteger(out.clients) && out.clients >= 1)) throw new Error('--clients must be a whole number ≥ 1');
  if (!(out.seconds > 0)) throw new Error('--seconds must be a number > 0');
  if (!(out.warmup >= 0)) throw new Error('--warmup must be a number ≥ 0');
  return out;
}
