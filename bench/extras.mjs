// Extra measurements, each in its own process (spawned by run.mjs), each printing one JSON line.
// Usage: node --expose-gc bench/extras.mjs loop-flatness
//        node --expose-gc bench/extras.mjs warm <troupe|floor|adk> [scenario,scenario]
//        node --expose-gc bench/extras.mjs graph-flatness <troupe|floor|adk>
//        node --expose-gc bench/extras.mjs streaming
//        node --expose-gc bench/extras.mjs fanout <agents>
// (import cost: bench/import-cost.mjs)
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { BaseLlm, LlmAgent, ParallelAgent } from '../packages/core/dist/index.js';
import { TEXT, WORDS, counters, resetCounters, respond } from './fake-model.mjs';
import * as floor from './scenarios/floor.mjs';
import {
  FLAT_CHAIN,
  FLAT_CHAIN_CPU_AT,
  INSTRUCTION,
  PEER_FRAMEWORKS,
  USER_MESSAGE,
  WARM_SCENARIOS,
} from './scenarios/spec.mjs';
import * as troupe from './scenarios/troupe.mjs';
import { FakeLlm, loopN, troupeApp } from './scenarios/troupe.mjs';
import { cpuMicros, gc, heapAfterGc, median, quantile, round } from './stats.mjs';

const MB = 1048576;

/** Mean wall time (ms) per run over `runs` runs of `run` (total / runs, so GC pauses count wherever they land). */
async function meanMs(run, runs) {
  const t = performance.now();
  for (let i = 0; i < runs; i++) await run();
  return (performance.now() - t) / runs;
}

/**
 * Per-iteration cost of the loop200 shape at 50, 200 and 400 iterations: total time of a block of runs
 * / iterations (a mean, so GC pauses count for short and long runs alike; a median of run times would
 * hide the pauses of short runs only), in alternating blocks so drift hits every size alike, then the
 * median over blocks. Flat = the 400/50 ratio near 1.
 */
async function loopFlatness() {
  const BLOCKS = 5;
  const sizes = [50, 200, 400];
  const measured = {};
  // The floor first, so it does not pay for collecting Troupe's heap; its blocks are 10× longer
  // because one floor iteration takes well under a microsecond.
  for (const [framework, make, iterationsPerBlock] of [
    ['floor', floor.loopN, 16_000],
    ['troupe', loopN, 1600],
  ]) {
    const apps = new Map(sizes.map((n) => [n, make(n)]));
    const samples = new Map(sizes.map((n) => [n, []]));
    for (const n of sizes) await meanMs(apps.get(n).run, Math.max(5, Math.ceil(2000 / n))); // warm-up
    gc();
    for (let block = 0; block < BLOCKS; block++) {
      for (const n of sizes) {
        resetCounters();
        const runs = Math.max(4, Math.round(iterationsPerBlock / n));
        const ms = await meanMs(apps.get(n).run, runs);
        if (counters.llmCalls !== runs * n)
          throw new Error(`${framework} loop ${n}: ${counters.llmCalls} model calls for ${runs} runs`);
        samples.get(n).push((ms * 1000) / n);
      }
    }
    const perIter = Object.fromEntries(sizes.map((n) => [n, round(median(samples.get(n)), 3)]));
    const prefix = framework === 'troupe' ? '' : 'floor_';
    const out = {};
    for (const n of sizes) out[`${prefix}us_per_iteration_${n}`] = perIter[n];
    out[`${prefix}ratio_400_vs_50`] = round(perIter[400] / perIter[50], 3);
    measured[framework] = out;
  }
  return {
    framework: 'troupe',
    scenario: 'loop-flatness',
    ...measured.troupe,
    target_ratio: 1.2,
    ...measured.floor,
    notes: `loop200 shape escalating at N; per-iteration = block time / iterations (Troupe ~1,600, floor ~16,000 iterations per size and block; GC included); median of ${BLOCKS} alternating blocks`,
  };
}

/** A model that streams the 20 words as partial chunks, stamping when each is yielded. */
class StreamingFakeLlm extends BaseLlm {
  constructor(stamps) {
    super('fake-stream');
    this.stamps = stamps;
  }

  async *generateContentAsync(request, stream) {
    const final = respond('text', request);
    if (stream) {
      for (let i = 0; i < WORDS.length; i++) {
        const chunk = {
          content: { role: 'model', parts: [{ text: i === 0 ? WORDS[i] : ` ${WORDS[i]}` }] },
          partial: true,
        };
        this.stamps.push(performance.now());
        yield chunk;
      }
    }
    yield final;
  }
}

/** Chunk-to-consumer latency with runConfig.streaming 'sse', and the same through two plain async generators. */
async function streaming() {
  const runs = 200;
  const warmup = 20;
  const stamps = [];
  const agent = new LlmAgent({
    name: 'streamer',
    model: new StreamingFakeLlm(stamps),
    instruction: INSTRUCTION,
    outputKey: 'answer',
  });
  const { runner } = troupeApp(agent);
  const troupeUs = [];
  for (let r = 0; r < warmup + runs; r++) {
    if (r === warmup) gc();
    stamps.length = 0;
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    let k = 0;
    let text = '';
    for await (const event of runner.runAsync({
      userId: 'u',
      sessionId: session.id,
      newMessage: USER_MESSAGE,
      runConfig: { streaming: 'sse' },
    })) {
      if (!event.partial) continue;
      const now = performance.now();
      if (r >= warmup) troupeUs.push((now - stamps[k]) * 1000);
      k++;
      text += event.content.parts[0].text;
    }
    if (k !== WORDS.length || stamps.length !== WORDS.length || text !== TEXT)
      throw new Error(`streaming: ${k} partial events for ${stamps.length} chunks`);
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    });
    if (stored.state.answer !== TEXT || stored.events.some((e) => e.partial))
      throw new Error('streaming: outputKey / persisted partials wrong');
  }

  // Floor: model generator -> agent generator (wraps each chunk in an event) -> consumer.
  const floorUs = [];
  async function* model() {
    const final = respond('text', { contents: [] });
    for (let i = 0; i < WORDS.length; i++) {
      const chunk = {
        content: { role: 'model', parts: [{ text: i === 0 ? WORDS[i] : ` ${WORDS[i]}` }] },
        partial: true,
      };
      stamps.push(performance.now());
      yield chunk;
    }
    yield final;
  }
  async function* agentGen() {
    for await (const chunk of model()) yield { author: 'streamer', content: chunk.content, partial: chunk.partial };
  }
  for (let r = 0; r < warmup + runs; r++) {
    stamps.length = 0;
    let k = 0;
    for await (const event of agentGen()) {
      if (!event.partial) continue;
      if (r >= warmup) floorUs.push((performance.now() - stamps[k]) * 1000);
      k++;
    }
  }
  return {
    framework: 'troupe',
    scenario: 'streaming',
    runs,
    chunks: troupeUs.length,
    chunk_p50_us: round(quantile(troupeUs, 0.5), 2),
    chunk_p99_us: round(quantile(troupeUs, 0.99), 2),
    floor_chunk_p50_us: round(quantile(floorUs, 0.5), 2),
    floor_chunk_p99_us: round(quantile(floorUs, 0.99), 2),
    notes:
      "LlmAgent + runner.runAsync, runConfig { streaming: 'sse' }; 20 partial chunks per run; time from the model yielding a chunk to the runAsync consumer receiving its partial event; floor = two plain async generators",
  };
}

/** A ParallelAgent of `n` LlmAgents (own outputKey each), run once: time, heap of the tree and after the run. */
async function fanout(n) {
  const model = new FakeLlm('text');
  const base = heapAfterGc();
  const agents = Array.from(
    { length: n },
    (_, i) => new LlmAgent({ name: `a${i}`, model, instruction: INSTRUCTION, outputKey: `out${i}` }),
  );
  const root = new ParallelAgent({ name: 'fanout', subAgents: agents });
  const { runner } = troupeApp(root);
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const built = heapAfterGc();
  resetCounters();
  let events = 0;
  let peak = 0;
  const t0 = performance.now();
  for await (const _event of runner.runAsync({
    userId: 'u',
    sessionId: session.id,
    newMessage: USER_MESSAGE,
    runConfig: { maxLlmCalls: n + 10 },
  })) {
    if (++events % 500 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const seconds = (performance.now() - t0) / 1000;
  const after = heapAfterGc();
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  const keys = Object.keys(stored.state).filter((k) => k.startsWith('out')).length;
  if (counters.llmCalls !== n || keys !== n)
    throw new Error(`fanout ${n}: ${counters.llmCalls} model calls, ${keys} output keys`);
  return {
    framework: 'troupe',
    scenario: 'fanout-large',
    agents: n,
    status: 'completed',
    seconds: round(seconds, 3),
    us_per_agent: round((seconds * 1e6) / n, 1),
    events,
    tree_heap_mb: round((built - base) / MB, 2),
    retained_heap_mb: round((after - base) / MB, 2),
    retained_kb_per_agent: round((after - base) / n / 1024, 3),
    peak_heap_used_growth_mb: round((Math.max(peak, after) - base) / MB, 2),
    notes:
      'ParallelAgent of N LlmAgents with their own outputKey, one run; retained = tree + runner + session with its events, after gc; peak = highest heapUsed sampled every 500 events (includes garbage not yet collected)',
  };
}

/**
 * The scenarios once the JIT has done its work, for one framework per process. The scenario
 * table's counted runs are few (loop200: 20, fanout100: 50), so its numbers include the first runs
 * of a fresh process, while code is still interpreted or being compiled: several times slower per
 * run than later (see docs/performance.md). Here each scenario (not sessions10k) runs for `WARM_MS`
 * first, then in `BLOCKS` blocks of about `BLOCK_MS`, each on a fresh app (so the retained sessions
 * stay one block's worth); the figure is the median over blocks of the mean µs per run, GC included.
 * (Until 2026-11-28 each block began with a forced gc(); see the comment in the loop.)
 */
async function warm(framework, only) {
  const WARM_MS = 1500;
  const BLOCKS = 5;
  const BLOCK_MS = 300;
  const module = await scenariosOf(framework);
  const out = { framework, scenario: 'warm' };
  for (const scenario of only ?? WARM_SCENARIOS) {
    const make = module[scenario];
    const warmApp = make();
    let runs = 0;
    const start = performance.now();
    while (performance.now() - start < WARM_MS) {
      await warmApp.run();
      runs++;
    }
    const perBlock = Math.max(3, Math.round((runs * BLOCK_MS) / WARM_MS));
    const samples = [];
    const cpuSamples = [];
    for (let block = 0; block < BLOCKS; block++) {
      // No forced gc() here: a full GC deoptimizes the optimized code that embeds objects it
      // collects (V8's 'weak objects' deopts: ~50 Troupe functions after graph50's warm-up), and
      // Troupe's graph50 then runs ~3× slower for its next 40–60 runs (ADK's ~1.7×, the floor's not
      // at all): that would measure re-warming. Earlier blocks' garbage is collected when V8 decides.
      const app = make();
      const cpu = cpuMicros();
      samples.push((await meanMs(app.run, perBlock)) * 1000);
      cpuSamples.push((cpuMicros() - cpu) / perBlock);
    }
    out[`${scenario}_us`] = round(median(samples), 1);
    out[`${scenario}_cpu_us`] = round(median(cpuSamples), 1);
  }
  out.notes = `each scenario after ${WARM_MS} ms of runs (JIT warm); median of ${BLOCKS} blocks of ~${BLOCK_MS} ms on a fresh app, mean µs per run, GC included (<scenario>_cpu_us: the process's CPU time per run, all threads)`;
  return out;
}

/** A framework's scenario module: troupe, floor, or a peer's (installed by npm run bench:peers). */
async function scenariosOf(framework) {
  if (framework === 'troupe') return troupe;
  if (framework === 'floor') return floor;
  return import(new URL(PEER_FRAMEWORKS[framework], import.meta.url).href);
}

/**
 * Is a graph workflow's per-node cost flat in the number of nodes already finished? Runs of a
 * chain of FLAT_CHAIN.nodes function nodes; each node stamps performance.now() as it starts, and
 * the nodes at the windows' ends (FLAT_CHAIN_CPU_AT) also the process's CPU time. The time from
 * node 1's start to node 51's is what nodes 1–50 cost (engine, events, session appends, GC
 * included), node 450's start to node 500's what the last 50 cost. Each window is summed over the
 * runs (each run on a new session deleted after it, after uncounted warm-up runs), so a GC pause counts
 * wherever it lands, and the ratio is late ÷ early: in CPU time (what the process used, not the
 * time it waited for a core: the steadier figure on a loaded machine) and in wall time. Beside
 * them, the median single node interval of each window over all runs (pauses left out).
 */
async function graphFlatness(framework) {
  const WARMUP = 5;
  // At least MIN_RUNS runs, more while under BUDGET_MS (up to MAX_RUNS): sums over more runs are steadier.
  const MIN_RUNS = 30;
  const MAX_RUNS = 200;
  const BUDGET_MS = 8000;
  const { nodes, window } = FLAT_CHAIN;
  const [a, b, c, d] = FLAT_CHAIN_CPU_AT;
  const module = await scenariosOf(framework);
  const app = module.chainN(nodes);
  // Each run's session is deleted after it, so the heap holds one run's events, not every run's:
  // what is measured is growth within a run, not collecting the sessions of earlier runs.
  const run = () => app.run({ dropSession: true });
  for (let i = 0; i < WARMUP; i++) await run();
  const sums = { cpuEarly: 0, cpuLate: 0, wallEarly: 0, wallLate: 0 };
  const perRun = [];
  const early = [];
  const late = [];
  const totals = [];
  const began = performance.now();
  let runs = 0;
  // No forced gc() between runs: it deoptimizes code (see warm()), so the first window of the next
  // run would measure re-warming. GC pauses land where V8 puts them, in either window.
  for (; runs < MIN_RUNS || (runs < MAX_RUNS && performance.now() - began < BUDGET_MS); runs++) {
    const t = performance.now();
    await run();
    totals.push((performance.now() - t) * 1000);
    const { stamps, cpu } = app;
    const cpuEarly = cpu[b] - cpu[a];
    const cpuLate = cpu[d] - cpu[c];
    if (!(cpuEarly > 0 && cpuLate > 0 && stamps[d] > stamps[a]))
      throw new Error(`graph-flatness ${framework}: node stamps missing`);
    sums.cpuEarly += cpuEarly;
    sums.cpuLate += cpuLate;
    sums.wallEarly += (stamps[b] - stamps[a]) * 1000;
    sums.wallLate += (stamps[d] - stamps[c]) * 1000;
    perRun.push(cpuLate / cpuEarly);
    for (let i = a; i < b; i++) early.push((stamps[i + 1] - stamps[i]) * 1000);
    for (let i = c; i < d; i++) late.push((stamps[i + 1] - stamps[i]) * 1000);
  }
  const perNode = (sum) => round(sum / (runs * window), 2);
  return {
    framework,
    scenario: 'graph-flatness',
    nodes,
    window,
    runs,
    cpu_us_per_node_first: perNode(sums.cpuEarly),
    cpu_us_per_node_last: perNode(sums.cpuLate),
    cpu_ratio_last_vs_first: round(sums.cpuLate / sums.cpuEarly, 3),
    cpu_ratio_per_run: [round(quantile(perRun, 0.1), 2), round(median(perRun), 2), round(quantile(perRun, 0.9), 2)],
    us_per_node_first: perNode(sums.wallEarly),
    us_per_node_last: perNode(sums.wallLate),
    ratio_last_vs_first: round(sums.wallLate / sums.wallEarly, 3),
    median_node_us_first: round(median(early), 2),
    median_node_us_last: round(median(late), 2),
    median_node_ratio: round(median(late) / median(early), 3),
    run_p50_us: round(median(totals), 1),
    target_ratio: 1.5,
    notes: `${app.notes}; per-node cost = time between node starts over ${window} nodes (nodes ${a + 1}→${b + 1} and ${c + 1}→${d + 1}), summed over ${runs} runs (at least ${MIN_RUNS}, more within ${BUDGET_MS / 1000} s) after ${WARMUP} warm-up runs, in CPU time (process.cpuUsage, all threads) and wall time; cpu_ratio_per_run = p10, median, p90 of the runs' own ratios; median_node = median single interval (pauses left out)`,
  };
}

const FRAMEWORK_NAMES = ['troupe', 'floor', ...Object.keys(PEER_FRAMEWORKS)];
const [what, arg, arg2] = process.argv.slice(2);
const jobs = {
  'loop-flatness': loopFlatness,
  streaming,
  // `warm adk`: ADK JS (installed by npm run bench:peers). An optional list limits the scenarios.
  warm: () => warm(arg, arg2?.split(',')),
  'graph-flatness': () => graphFlatness(arg),
  fanout: () => fanout(Number(arg)),
};
if (
  !jobs[what] ||
  (what === 'fanout' && !(Number(arg) > 0)) ||
  ((what === 'warm' || what === 'graph-flatness') && !FRAMEWORK_NAMES.includes(arg)) ||
  (what === 'warm' && arg2 !== undefined && !arg2.split(',').every((s) => WARM_SCENARIOS.includes(s)))
) {
  console.error(
    `usage: extras.mjs loop-flatness | streaming | warm <${FRAMEWORK_NAMES.join('|')}> [${WARM_SCENARIOS.join(',')}] | graph-flatness <${FRAMEWORK_NAMES.join('|')}> | fanout <agents>`,
  );
  process.exit(2);
}
console.log(JSON.stringify(await jobs[what]()));
