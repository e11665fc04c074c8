// One measurement round of one (framework, scenario), in its own process so heap numbers and JIT
// state belong to that pair alone. Prints one JSON line (the documented format, for this round).
// Usage: node --expose-gc bench/worker.mjs <troupe|floor|adk> <scenario> (adk: after `npm run bench:peers` installed bench/peers)
import process from 'node:process';
import console from 'node:console';
import { counters, resetCounters } from './fake-model.mjs';
import { FRAMEWORKS, PEER_FRAMEWORKS, SCENARIOS } from './scenarios/spec.mjs';
import { heapAfterGc, quantile, round, timeRuns, warmupRuns } from './stats.mjs';

const [framework, scenario] = process.argv.slice(2);
const peer = Object.hasOwn(PEER_FRAMEWORKS, framework);
if (!(FRAMEWORKS.includes(framework) || peer) || !(scenario in SCENARIOS)) {
  const names = [...FRAMEWORKS, ...Object.keys(PEER_FRAMEWORKS)];
  console.error(`usage: worker.mjs <${names.join('|')}> <${Object.keys(SCENARIOS).join('|')}>`);
  process.exit(2);
}
const spec = SCENARIOS[scenario];
// Peers' modules sit next to their node_modules (bench/peers), so their bare imports resolve there.
const impl = await import(peer ? PEER_FRAMEWORKS[framework] : `./scenarios/${framework}.mjs`);
const hasGc = typeof globalThis.gc === 'function';

async function measureRuns() {
  const s = impl[scenario]();
  const warmup = warmupRuns(spec.runs);
  let first;
  const { seconds, latencies, cpuMicros } = await timeRuns(
    async (i, warm) => {
      const result = await s.run();
      if (warm && i === 0) first = result;
    },
    { runs: spec.runs, warmup, beforeCounted: resetCounters },
  );
  const llmCalls = counters.llmCalls;
  const toolCalls = counters.toolCalls;
  // Heap after the counted runs, with the app (and the sessions its store keeps) still alive.
  const heap = heapAfterGc();
  // Awaited: a peer's check may read its session store (ADK's run result carries no state).
  await s.verify(first);
  return { seconds, latencies, cpuMicros, llmCalls, toolCalls, heap, warmup, notes: s.notes };
}

async function measureSessions() {
  const s = impl[scenario]({ sessions: spec.sessions });
  // One run is 10,000 sessions: the warm-up is 10% of that run's work (1,000 sessions) on a separate app.
  const warmup = Math.max(5, Math.ceil(spec.sessions * 0.1));
  await s.warmup(warmup);
  resetCounters();
  const before = heapAfterGc();
  const { seconds, latencies, cpuMicros } = await timeRuns(() => s.run(), { runs: 1, warmup: 0 });
  const after = heapAfterGc();
  // Keeps the app and its 10,000 sessions reachable until after the measurement.
  if (!s.retained) throw new Error('sessions must stay retained until measured');
  return {
    seconds,
    latencies,
    cpuMicros,
    heap: after,
    llmCalls: counters.llmCalls,
    toolCalls: counters.toolCalls,
    warmup: `${warmup} sessions`,
    notes: s.notes,
    extra: {
      heap_kb_per_session: round((after - before) / spec.sessions / 1024, 3),
      per_session_p50_us: round(quantile(s.perSessionUs, 0.5), 1),
      per_session_p99_us: round(quantile(s.perSessionUs, 0.99), 1),
      sessions_per_sec: round(spec.sessions / seconds, 1),
    },
  };
}

const m = scenario === 'sessions10k' ? await measureSessions() : await measureRuns();
const heapMb = m.heap / 1048576;
const llmCallsPerRun = m.llmCalls / spec.runs;
const result = {
  framework,
  scenario,
  runs: spec.runs,
  seconds: round(m.seconds, 4),
  runs_per_sec: round(spec.runs / m.seconds, 2),
  p50_us: round(quantile(m.latencies, 0.5), 1),
  p99_us: round(quantile(m.latencies, 0.99), 1),
  heap_mb: round(heapMb, 2),
  llm_calls_per_run: llmCallsPerRun,
  notes: `${m.notes}; sessions kept in memory; warm-up ${m.warmup}${hasGc ? '' : '; NO --expose-gc: heap without gc'}`,
  // CPU time per counted run (process.cpuUsage, all threads): unlike wall time, not inflated by waiting for a core.
  cpu_us_per_run: round(m.cpuMicros / spec.runs, 1),
  ...m.extra,
};
const problems = [];
if (llmCallsPerRun !== spec.llmCallsPerRun)
  problems.push(`llm_calls_per_run ${llmCallsPerRun}, expected ${spec.llmCallsPerRun}`);
if (spec.toolCallsPerRun !== undefined && m.toolCalls / spec.runs !== spec.toolCallsPerRun) {
  problems.push(`tool calls per run ${m.toolCalls / spec.runs}, expected ${spec.toolCallsPerRun}`);
}
if (problems.length) result.error = problems.join('; ');
console.log(JSON.stringify(result));
if (problems.length) process.exitCode = 1;
