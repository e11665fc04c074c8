// Troupe's benchmark: every scenario of bench-scenarios.md for Troupe and for the plain-JS floor,
// alternating Troupe/floor within one invocation, then the extra measurements.
// Usage: npm run bench [-- --rounds 9 --only seq10,transfer --no-extras --strict --no-build]
//        npm run bench:peers [-- --rounds 5 --only seq10]   (adds the peer frameworks of bench/peers: ADK JS)
// Both end with each scenario measured again after JIT warm-up (extras.mjs warm), per framework,
// and, when graph50 is measured, its flatness check (extras.mjs graph-flatness), per framework.
//
// It measures the BUILT code (packages/core/dist): run `npm run build` first. This script runs the
// build itself when dist is missing or older than packages/core/src (unless --no-build), so numbers
// never come from stale output. Each (framework, scenario, round) runs in a fresh `node --expose-gc` process (see worker.mjs),
// so heap_mb and JIT state belong to that pair alone, as the scenario document asks. Stdout: one
// JSON line per (framework, scenario) (medians over rounds), the ratio table, the extras; progress
// goes to stderr. Everything is also written to bench/results/latest.json.
// Exit code: 1 when a run failed or the fake-model call count differs from the expected
// llm_calls_per_run; with --strict also when a target is missed.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath } from 'node:url';
import { ensurePeersInstalled } from './peers/install.mjs';
import { TARGETS, aggregate, floorTarget, peerRatios, peerTable, ratioTable, ratios, warmTable } from './report.mjs';
import { FRAMEWORKS as OWN_FRAMEWORKS, PEER_FRAMEWORKS, SCENARIOS, WARM_SCENARIOS } from './scenarios/spec.mjs';
import { round } from './stats.mjs';

const started = performance.now();
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const root = join(benchDir, '..');
const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[bench]', ...parts);
// With --peers every round also runs the peer frameworks (installed on demand in bench/peers).
const PEERS = args.peers ? Object.keys(PEER_FRAMEWORKS) : [];
const FRAMEWORKS = [...OWN_FRAMEWORKS, ...PEERS];

if (args.build) ensureBuilt();
if (args.peers) ensurePeersInstalled(log);
const loadStart = loadavg().map((x) => round(x, 2));
log(`node ${process.version}, ${cpus().length} cpu(s), load average ${loadStart.join(' ')}; ${args.rounds} round(s)`);

// ---- scenarios, alternating frameworks -------------------------------------------------------
const scenarios = args.only ?? Object.keys(SCENARIOS);
const raw = Object.fromEntries(FRAMEWORKS.map((f) => [f, Object.fromEntries(scenarios.map((s) => [s, []]))]));
const failures = [];
for (let round_ = 0; round_ < args.rounds; round_++) {
  for (const scenario of scenarios) {
    // Swap who goes first every round so neither framework always runs on a "fresher" machine.
    const order = round_ % 2 === 0 ? FRAMEWORKS : [...FRAMEWORKS].reverse();
    for (const framework of order) {
      const { code, stdout, stderr } = await node(['--expose-gc', join(benchDir, 'worker.mjs'), framework, scenario]);
      const line = lastJson(stdout);
      if (code !== 0 || !line || line.error) {
        const reason = line?.error ?? (stderr.trim().split('\n').slice(-3).join(' | ') || `exit code ${code}`);
        failures.push({ framework, scenario, round: round_ + 1, reason });
        log(`FAILED ${framework} ${scenario} (round ${round_ + 1}): ${reason}`);
        if (line) raw[framework][scenario].push(line); // still reported, e.g. with the wrong call count
        continue;
      }
      raw[framework][scenario].push(line);
      log(
        `round ${round_ + 1}/${args.rounds} ${framework.padEnd(6)} ${scenario.padEnd(11)} ${String(line.runs_per_sec).padStart(10)} runs/s  p50 ${line.p50_us} µs`,
      );
    }
  }
}

const lines = [];
const rows = [];
const peerComparisons = {};
for (const scenario of scenarios) {
  const agg = {};
  for (const framework of FRAMEWORKS) {
    if (raw[framework][scenario].length === 0) {
      const reason = failures.find((f) => f.framework === framework && f.scenario === scenario)?.reason ?? 'no result';
      lines.push({ framework, scenario, failed: reason });
      continue;
    }
    agg[framework] = aggregate(raw[framework][scenario]);
    const expected = SCENARIOS[scenario].llmCallsPerRun;
    if (
      agg[framework].llm_calls_per_run !== expected &&
      !failures.some((f) => f.framework === framework && f.scenario === scenario)
    ) {
      failures.push({
        framework,
        scenario,
        reason: `llm_calls_per_run ${JSON.stringify(agg[framework].llm_calls_per_run)}, expected ${expected}`,
      });
    }
    lines.push(agg[framework]);
  }
  if (agg.troupe && agg.floor)
    rows.push({
      scenario,
      troupe: agg.troupe,
      floor: agg.floor,
      ratio: ratios(raw.troupe[scenario], raw.floor[scenario]),
      target: floorTarget(SCENARIOS[scenario]),
    });
}
for (const line of lines) console.log(JSON.stringify(line));
console.log('');
console.log(
  `Troupe / floor (median of per-round ratios; ${args.rounds} round(s), Troupe and floor adjacent in each round)`,
);
for (const l of ratioTable(rows)) console.log(l);
for (const peer of PEERS) {
  const peerRows = scenarios
    .filter((scenario) => raw.troupe[scenario].length && raw[peer][scenario].length)
    .map((scenario) => ({
      scenario,
      troupe: lines.find((l) => l.framework === 'troupe' && l.scenario === scenario),
      peer: lines.find((l) => l.framework === peer && l.scenario === scenario),
      ratio: peerRatios(raw.troupe[scenario], raw[peer][scenario]),
    }));
  console.log('');
  console.log(
    `Troupe / ${peer} (median of per-round ratios; ${args.rounds} round(s); ${peer} p50 ÷ Troupe p50 = how many times faster Troupe is)`,
  );
  for (const l of peerTable(peerRows, peer)) console.log(l);
  peerComparisons[peer] = peerRows.map((r) => ({ scenario: r.scenario, ...r.ratio }));
}

// ---- extras ----------------------------------------------------------------------------------
const extras = {};
if (args.extras) {
  log('extras: import cost');
  extras.import = await extra([join(benchDir, 'import-cost.mjs'), '7'], true);
  log('extras: loop flatness');
  extras.loop = await extra(['--expose-gc', join(benchDir, 'extras.mjs'), 'loop-flatness']);
  log('extras: memory indexing as a session grows');
  extras.memory = await extra(['--expose-gc', join(benchDir, 'memory-flatness.mjs')]);
  log('extras: streaming');
  extras.streaming = await extra(['--expose-gc', join(benchDir, 'extras.mjs'), 'streaming']);
  extras.fanout = [];
  for (const n of [1000, 5000, 10000]) {
    log(`extras: ParallelAgent of ${n} agents`);
    extras.fanout.push(await extra(['--expose-gc', join(benchDir, 'extras.mjs'), 'fanout', String(n)]));
  }
  console.log('');
  for (const value of [extras.import, extras.loop, extras.memory, extras.streaming, ...extras.fanout])
    if (value) console.log(JSON.stringify(value));
}
// After JIT warm-up, one process per framework (with --peers too, where the other extras are off),
// for the measured scenarios that have a warm form.
const warmScenarios = WARM_SCENARIOS.filter((s) => scenarios.includes(s));
if ((args.extras || args.peers) && warmScenarios.length > 0) {
  extras.warm = {};
  const only = args.only ? [warmScenarios.join(',')] : [];
  for (const framework of FRAMEWORKS) {
    log(`extras: ${framework} after JIT warm-up`);
    extras.warm[framework] = await extra(
      ['--expose-gc', join(benchDir, 'extras.mjs'), 'warm', framework, ...only],
      false,
      framework,
    );
  }
  console.log('');
  console.log(warmTable(extras.warm, PEERS));
}
// graph50's flatness check: a 500-node chain, per-node cost of its last 50 nodes vs its first 50,
// one process per framework (with --peers too).
if ((args.extras || args.peers) && scenarios.includes('graph50')) {
  extras.graphFlatness = {};
  for (const framework of FRAMEWORKS) {
    log(`extras: ${framework} graph workflow flatness (500-node chain)`);
    extras.graphFlatness[framework] = await extra(
      ['--expose-gc', join(benchDir, 'extras.mjs'), 'graph-flatness', framework],
      false,
      framework,
    );
  }
  console.log('');
  for (const value of Object.values(extras.graphFlatness)) if (value) console.log(JSON.stringify(value));
}

// ---- summary ---------------------------------------------------------------------------------
const sessionsRow = rows.find((r) => r.scenario === 'sessions10k');
const checks = [];
for (const r of rows)
  checks.push({
    target: `${r.scenario} within ${r.target}× of the floor's throughput`,
    value: `${r.ratio.throughput_ratio}×`,
    ok: r.ratio.throughput_ratio <= r.target,
  });
// Scenarios with a throughput target against a peer (graph50: Troupe ≥ 5× ADK's runs/s).
for (const [peer, comparisons] of Object.entries(peerComparisons))
  for (const c of comparisons) {
    const wanted = SCENARIOS[c.scenario].peerThroughputTarget;
    if (wanted === undefined) continue;
    const warmTroupe = extras.warm?.troupe?.[`${c.scenario}_us`];
    const warmPeer = extras.warm?.[peer]?.[`${c.scenario}_us`];
    const afterWarmUp = warmTroupe > 0 && warmPeer > 0 ? `; after JIT warm-up ${round(warmPeer / warmTroupe, 2)}×` : '';
    checks.push({
      target: `${c.scenario}: Troupe ≥ ${wanted}× ${peer}'s throughput`,
      value: `${c.throughput_ratio}× (rounds ${c.throughput_ratio_range[0]}..${c.throughput_ratio_range[1]}${afterWarmUp})`,
      ok: c.throughput_ratio >= wanted,
    });
  }
if (extras.graphFlatness) {
  for (const [framework, f] of Object.entries(extras.graphFlatness)) {
    if (!f) continue;
    checks.push({
      target: `${framework === 'troupe' ? '' : `${framework} (info): `}graph workflow per-node CPU time, last ${f.window} of ${f.nodes} chained nodes ≤ ${TARGETS.graphFlatRatio}× the first ${f.window}`,
      value: `${f.cpu_ratio_last_vs_first}× (${f.cpu_us_per_node_first} → ${f.cpu_us_per_node_last} µs/node; wall ${f.ratio_last_vs_first}×, median node ${f.median_node_us_first} → ${f.median_node_us_last} µs = ${f.median_node_ratio}×)`,
      ok: framework !== 'troupe' || f.cpu_ratio_last_vs_first <= TARGETS.graphFlatRatio,
      info: framework !== 'troupe',
    });
  }
}
if (sessionsRow) {
  const kb = sessionsRow.troupe.heap_kb_per_session;
  checks.push({
    target: `heap per idle session ≤ ${TARGETS.sessionKb} KB`,
    value: `${kb} KB (floor ${sessionsRow.floor.heap_kb_per_session} KB)`,
    ok: kb <= TARGETS.sessionKb,
  });
}
if (extras.loop) {
  const l = extras.loop;
  checks.push({
    target: `loop per-iteration cost at 400 ≤ ${TARGETS.loopRatio}× at 50`,
    value: `${l.ratio_400_vs_50}× (${l.us_per_iteration_50} → ${l.us_per_iteration_200} → ${l.us_per_iteration_400} µs/iteration at 50/200/400)`,
    ok: l.ratio_400_vs_50 <= TARGETS.loopRatio,
  });
}
if (extras.memory) {
  const m = extras.memory;
  for (const store of ['in_memory', 'sqlite', 'pg']) {
    const ratio = m[`${store}_ratio_2000_vs_100`];
    if (ratio === undefined) continue;
    checks.push({
      target: `remembering a turn (${store}) at 2,000 session events ≤ ${TARGETS.memoryRatio}× at 100`,
      value: `${ratio}× (${m[`${store}_ms_per_turn_100`]} → ${m[`${store}_ms_per_turn_2000`]} ms per turn)`,
      ok: ratio <= TARGETS.memoryRatio,
    });
  }
}
if (extras.import) {
  const i = extras.import;
  checks.push({
    target: `import('@troupe/core') ≤ ${TARGETS.importMs} ms`,
    value: `${i.import_ms_p50} ms`,
    ok: i.import_ms_p50 <= TARGETS.importMs,
  });
  checks.push({
    target: `import heap ≤ ${TARGETS.importMb} MB`,
    value: `${i.import_heap_mb_p50} MB`,
    ok: i.import_heap_mb_p50 <= TARGETS.importMb,
  });
}
if (extras.fanout?.length) {
  const f = extras.fanout.filter(Boolean);
  const desc = f
    .map(
      (x) =>
        `${x.agents}: ${x.seconds} s, ${x.retained_kb_per_agent} KB/agent retained, peak heapUsed +${x.peak_heap_used_growth_mb} MB`,
    )
    .join('; ');
  const growth = f.length === 3 ? round(f[2].retained_heap_mb / f[0].retained_heap_mb, 1) : NaN;
  checks.push({
    target: 'ParallelAgent of 10,000 agents completes, heap grows linearly (10k/1k retained ≈ 10)',
    value: `${desc}; 10k/1k retained ×${growth}`,
    ok: f.length === 3 && f[2].status === 'completed' && growth <= 12,
    info: true,
  });
}
if (extras.streaming) {
  const s = extras.streaming;
  checks.push({
    target: 'streaming chunk → consumer latency (info)',
    value: `p50 ${s.chunk_p50_us} µs, p99 ${s.chunk_p99_us} µs (floor p50 ${s.floor_chunk_p50_us} µs, p99 ${s.floor_chunk_p99_us} µs)`,
    ok: true,
    info: true,
  });
}
console.log('');
console.log('Targets');
for (const c of checks) console.log(`  [${c.ok ? ' ok ' : 'MISS'}] ${c.target}: ${c.value}`);

const seconds = round((performance.now() - started) / 1000, 1);
const loadEnd = loadavg().map((x) => round(x, 2));
console.log('');
console.log(
  `bench finished in ${seconds} s; load average ${loadStart.join(' ')} at start, ${loadEnd.join(' ')} at end (${cpus().length} cpu(s); other processes add noise: compare ratios, not absolute times)`,
);
if (failures.length) {
  console.log(`FAILURES (${failures.length}):`);
  for (const f of failures)
    console.log(`  ${f.framework} ${f.scenario}${f.round ? ` round ${f.round}` : ''}: ${f.reason}`);
}

mkdirSync(join(benchDir, 'results'), { recursive: true });
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  loadavg: { start: loadStart, end: loadEnd },
  rounds: args.rounds,
  seconds,
  results: lines,
  ratios: rows.map((r) => ({ scenario: r.scenario, ...r.ratio })),
  peers: peerComparisons,
  extras,
  targets: checks,
  failures,
  rawRounds: raw,
};
// A peers run has its own file, so latest.json keeps meaning `npm run bench`.
const resultFile = args.peers ? 'peers.json' : 'latest.json';
writeFileSync(join(benchDir, 'results', resultFile), `${JSON.stringify(report, null, 2)}\n`);
log(`wrote bench/results/${resultFile}`);
const missed = checks.some((c) => !c.ok && !c.info);
if (failures.length || (args.strict && missed)) process.exitCode = 1;

// ---- helpers ---------------------------------------------------------------------------------
function parseArgs(argv) {
  const out = { rounds: 9, only: undefined, extras: true, strict: false, build: true, peers: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--rounds') out.rounds = Number(argv[++i]);
    else if (a === '--only') out.only = argv[++i].split(',');
    else if (a === '--no-extras') out.extras = false;
    else if (a === '--strict') out.strict = true;
    else if (a === '--no-build') out.build = false;
    else if (a === '--peers') out.peers = true;
    else
      throw new Error(`unknown argument ${a}; use --rounds N, --only a,b, --no-extras, --strict, --no-build, --peers`);
  }
  if (!(out.rounds >= 1)) throw new Error('--rounds must be at least 1');
  for (const s of out.only ?? [])
    if (!(s in SCENARIOS)) throw new Error(`unknown scenario ${s}; one of ${Object.keys(SCENARIOS).join(', ')}`);
  return out;
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the packages when packages/core/dist is missing or older than its sources. */
function ensureBuilt() {
  const core = join(root, 'packages', 'core');
  const buildInfo = join(core, 'dist', '.tsbuildinfo');
  const entry = join(core, 'dist', 'index.js');
  const stale =
    !existsSync(entry) || !existsSync(buildInfo) || newestMtime(join(core, 'src')) > statSync(buildInfo).mtimeMs;
  if (!stale) return;
  log('packages/core/dist is missing or older than src: running `npm run build` first');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

function node(argv) {
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function lastJson(stdout) {
  const text = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .at(-1);
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs one extra measurement process; a failure is recorded (and printed) rather than hidden. */
async function extra(argv, nonZeroIsTargetMiss = false, framework = 'troupe') {
  const { code, stdout, stderr } = await node(argv);
  const line = lastJson(stdout);
  if (!line || (code !== 0 && !nonZeroIsTargetMiss)) {
    const reason = stderr.trim().split('\n').slice(-3).join(' | ') || `exit code ${code}`;
    failures.push({ framework, scenario: argv.slice(-2).join(' '), reason });
    log(`FAILED extra ${argv.slice(-2).join(' ')}: ${reason}`);
    return undefined;
  }
  return line;
}
