// What @troupe/otel costs. Runs small multi-agent scenarios on the fake model (bench/fake-model.mjs)
// through the BUILT packages (run `npm run build` first) in four variants, interleaved in rounds in
// one process:
//   none         no plugin (core calls a hook only when some plugin implements it)
//   none_again   no plugin again: the A/A pair whose ratio shows the noise of this machine
//   noop         OpenTelemetryPlugin on the global tracer with no provider registered (a no-op tracer)
//   recording    OpenTelemetryPlugin on an SDK BasicTracerProvider whose processor drops the spans
//                (NoopSpanProcessor): the plugin's bookkeeping plus the SDK's span objects, no export
//   memory       OpenTelemetryPlugin on an SDK BasicTracerProvider + SimpleSpanProcessor + InMemorySpanExporter
// Stdout: one JSON line per (scenario, variant) with the median and p90 per-run latency (µs) over
// all counted runs and the median of per-round ratios to `none`; then one summary line per scenario.
// Usage: node --expose-gc bench/otel-overhead.mjs [--rounds 9] [--runs 150] [--only seq10,tools10]
import console from 'node:console';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  NoopSpanProcessor,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  SequentialAgent,
} from '../packages/core/dist/index.js';
import { OpenTelemetryPlugin } from '../packages/otel/dist/index.js';
import { TEXT, add, counters, resetCounters } from './fake-model.mjs';
import { FakeLlm } from './scenarios/troupe.mjs';
import { INSTRUCTION, USER_MESSAGE } from './scenarios/spec.mjs';
import { gc, median, quantile, round } from './stats.mjs';

const VARIANTS = ['none', 'none_again', 'noop', 'recording', 'memory'];

/** Each scenario: the agent tree, fake-model calls per run, and spans per traced run. */
const SCENARIOS = {
  seq10: {
    llmCalls: 10,
    spans: 22, // invocation + pipeline + 10 agents + 10 chats
    agent: () => {
      const model = new FakeLlm('text');
      const steps = Array.from(
        { length: 10 },
        (_, i) => new LlmAgent({ name: `step${i}`, model, instruction: INSTRUCTION, outputKey: `out${i}` }),
      );
      return new SequentialAgent({ name: 'pipeline', subAgents: steps });
    },
  },
  tools10: {
    llmCalls: 11,
    spans: 23, // invocation + agent + 11 chats + 10 tool calls
    agent: () => {
      const addTool = new FunctionTool({
        name: 'add',
        description: 'Adds two numbers.',
        parameters: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        execute: (args) => add(args),
      });
      return new LlmAgent({
        name: 'calculator',
        model: new FakeLlm('tools'),
        instruction: INSTRUCTION,
        tools: [addTool],
      });
    },
  },
};

const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[otel-overhead]', ...parts);
log(
  `node ${process.version}; ${args.rounds} rounds × ${args.runs} runs per variant; gc ${typeof globalThis.gc === 'function' ? 'exposed' : 'not exposed'}`,
);

for (const name of args.only) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario '${name}'; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const apps = Object.fromEntries(VARIANTS.map((variant) => [variant, app(variant, scenario)]));
  for (const variant of VARIANTS) await apps[variant].check();

  const random = seeded(42);
  const latencies = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  const roundMedians = Object.fromEntries(VARIANTS.map((v) => [v, []]));
  for (let r = 0; r < args.rounds; r++) {
    // A new order every round: a variant that runs after the span-heavy ones inherits their
    // garbage and JIT state, so no variant may always follow the same one.
    const order = shuffled(VARIANTS, random);
    for (const variant of order) {
      const times = await timeRuns(apps[variant].run, args.runs);
      latencies[variant].push(...times);
      roundMedians[variant].push(median(times));
    }
  }

  const summary = { bench: 'otel-overhead', scenario: name, rounds: args.rounds, runs_per_round: args.runs };
  for (const variant of VARIANTS) {
    const ratios = roundMedians[variant].map((m, i) => m / roundMedians.none[i]);
    const line = {
      bench: 'otel-overhead',
      scenario: name,
      variant,
      runs: latencies[variant].length,
      p50_us: round(median(latencies[variant]), 1),
      p90_us: round(quantile(latencies[variant], 0.9), 1),
      ratio_vs_none: round(median(ratios), 3),
      ratio_range: [round(Math.min(...ratios), 3), round(Math.max(...ratios), 3)],
    };
    console.log(JSON.stringify(line));
    summary[`${variant}_ratio`] = line.ratio_vs_none;
  }
  summary.noise_band = round(Math.abs(summary.none_again_ratio - 1), 3);
  summary.note =
    'none_again is a second plugin-free runner: its ratio to none is the noise; without the plugin core pays nothing for it';
  console.log(JSON.stringify(summary));
}

/** A runner for one variant, with `run()` (one run on a new session) and `check()` (one verified run). */
function app(variant, scenario) {
  let exporter;
  let plugins = [];
  if (variant === 'noop') plugins = [new OpenTelemetryPlugin()];
  if (variant === 'recording') {
    plugins = [
      new OpenTelemetryPlugin({
        tracerProvider: new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }),
      }),
    ];
  }
  if (variant === 'memory') {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    plugins = [new OpenTelemetryPlugin({ tracerProvider: provider })];
  }
  const runner = new Runner({
    appName: 'bench',
    agent: scenario.agent(),
    sessionService: new InMemorySessionService(),
    plugins,
  });
  const run = async () => {
    const session = await runner.sessionService.createSession({ appName: 'bench', userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: USER_MESSAGE });
    if (result.status !== 'completed')
      throw new Error(`${variant} run ended with status '${result.status}': ${result.error?.message}`);
    // Keep the exporter from growing across runs (a real exporter ships spans away).
    exporter?.reset();
    return result;
  };
  const check = async () => {
    resetCounters();
    exporter?.reset();
    const session = await runner.sessionService.createSession({ appName: 'bench', userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: USER_MESSAGE });
    if (result.status !== 'completed' || result.output !== TEXT)
      throw new Error(`${variant}: the check run did not complete with the fake text`);
    if (counters.llmCalls !== scenario.llmCalls)
      throw new Error(`${variant}: ${counters.llmCalls} model calls, expected ${scenario.llmCalls}`);
    const spans = exporter ? exporter.getFinishedSpans().length : 0;
    const expected = exporter ? scenario.spans : 0;
    if (spans !== expected) throw new Error(`${variant}: ${spans} spans exported, expected ${expected}`);
  };
  return { run, check };
}

/** Per-run latencies (µs) of `runs` sequential runs after a short warm-up. */
async function timeRuns(run, runs) {
  for (let i = 0; i < Math.max(5, Math.ceil(runs / 10)); i++) await run();
  gc();
  const times = new Array(runs);
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    times[i] = (performance.now() - start) * 1000;
  }
  return times;
}

/** A copy of `items` in random order (Fisher–Yates). */
function shuffled(items, random) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A seeded PRNG (mulberry32), so every invocation uses the same orders. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function parseArgs(argv) {
  const out = { rounds: 9, runs: 150, only: Object.keys(SCENARIOS) };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--rounds') out.rounds = positive(flag, value);
    else if (flag === '--runs') out.runs = positive(flag, value);
    else if (flag === '--only') out.only = String(value).split(',').filter(Boolean);
    else throw new Error(`unknown option ${flag}; use --rounds N, --runs N, --only seq10,tools10`);
    i++;
  }
  return out;
}

function positive(flag, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer; got ${value}`);
  return n;
}
