// Extra measurements, each in its own process (spawned by run.mjs), each printing one JSON line.
// Usage: node --expose-gc bench/extras.mjs loop-flatness
//        node --expose-gc bench/extras.mjs warm <troupe|floor|adk>
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
import { INSTRUCTION, PEER_FRAMEWORKS, USER_MESSAGE } from './scenarios/spec.mjs';
import * as troupe from './scenarios/troupe.mjs';
import { FakeLlm, loopN, troupeApp } from './scenarios/troupe.mjs';
import { gc, heapAfterGc, median, quantile, round } from './stats.mjs';

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
 */
async function warm(framework) {
  const WARM_MS = 1500;
  const BLOCKS = 5;
  const BLOCK_MS = 300;
  const module =
    framework === 'troupe'
      ? troupe
      : framework === 'floor'
        ? floor
        : await import(new URL(PEER_FRAMEWORKS[framework], import.meta.url).href);
  const out = { framework, scenario: 'warm' };
  for (const scenario of WARM_SCENARIOS) {
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
    for (let block = 0; block < BLOCKS; block++) {
      const app = make();
      gc();
      samples.push((await meanMs(app.run, perBlock)) * 1000);
    }
    out[`${scenario}_us`] = round(median(samples), 1);
  }
  out.notes = `each scenario after ${WARM_MS} ms of runs (JIT warm); median of ${BLOCKS} blocks of ~${BLOCK_MS} ms on a fresh app, mean µs per run, GC included`;
  return out;
}

/** The scenarios `warm` measures (sessions10k is one long run already). */
export const WARM_SCENARIOS = ['seq10', 'fanout100', 'loop200', 'tools10', 'transfer'];

const [what, arg] = process.argv.slice(2);
const jobs = {
  'loop-flatness': loopFlatness,
  streaming,
  // `warm adk`: ADK JS (installed by npm run bench:peers).
  warm: () => warm(arg),
  fanout: () => fanout(Number(arg)),
};
if (
  !jobs[what] ||
  (what === 'fanout' && !(Number(arg) > 0)) ||
  (what === 'warm' && !['troupe', 'floor', ...Object.keys(PEER_FRAMEWORKS)].includes(arg))
) {
  console.error('usage: extras.mjs loop-flatness | streaming | warm <troupe|floor|adk> | fanout <agents>');
  process.exit(2);
}
console.log(JSON.stringify(await jobs[what]()));
