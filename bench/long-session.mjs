// Long sessions: does a turn cost the same at event 2,000 as at event 20? One chat session grows by
// 500 turns of 4 stored events each (the user's message, the model's tool call, the tool's response,
// the model's answer) to 2,000 events, on InMemorySessionService, SqliteSessionService (a file in a
// temp dir) and PostgresSessionService (its own schema, dropped afterwards). The per-turn time of
// the last 50 turns is divided by that of turns 5–55 (after an uncounted 100-turn session that warms
// the JIT up, so early turns are not compile time): 1 means flat, and the goal is ≤ 1.5. The ratio
// compares median turns (robust to a busy machine's pauses); the ratio of means, GC pauses and
// noise included, is printed beside it. Each measured turn is followed by a turn of a short session
// (a control: same work, same moment); late/early of those is the `control` column, and the ratio
// divided by it (`load-adjusted`) takes out a change of the machine's load between the windows. Each round grows a new session; the table shows the median
// over rounds. The floor does the same 500 turns in plain JavaScript (an events array, a messages
// array, the same instant model and tool), so its ratio shows how flat "flat" can be.
//
// Usage: node --expose-gc bench/long-session.mjs [--rounds 3] [--turns 500] [--only memory,sqlite,postgres] [--pg URL] [--no-build] [--strict]
//   PostgreSQL runs when --pg or TROUPE_TEST_PG_URL gives a URL (e.g. postgres://postgres@127.0.0.1:5432/test),
//   and prints a `skipped` line otherwise.
// It measures the BUILT packages (dist/) and runs `npm run build` when the dist of core, sqlite or
// postgres is missing or older than its sources (--no-build turns that off). Stdout: one JSON line per
// store (medians over rounds) and a table of ratios; progress goes to stderr. Exit code 1 when a run
// did not complete or a session does not hold the expected events; with --strict also when a store
// misses the goal.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath } from 'node:url';
import { gc, median, quantile, round } from './stats.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const APP = 'bench';
const USER = 'u';
const EVENTS_PER_TURN = 4;
// Turns 5–55 (the first five warm up), and the last 50.
const EARLY = [5, 55];
const LATE_TURNS = 50;
// Turns of an uncounted session grown first (same runner and store), to warm the JIT up.
const WARMUP_TURNS = 100;
const args = parseArgs(process.argv.slice(2));
const log = (...parts) => console.error('[long-session]', ...parts);
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');

if (args.build) ensureBuilt();
const { BaseLlm, FunctionTool, InMemorySessionService, LlmAgent, Runner } = await import(dist('core'));

/** The instant model: a tool call when the last message is the user's, the answer after the tool's response. Reads only the last message. */
function answer(contents, turnOf) {
  const last = contents[contents.length - 1];
  const part = last?.parts[0];
  if (part && 'functionResponse' in part) {
    return {
      content: {
        role: 'model',
        parts: [
          { text: `The weather in ${part.functionResponse.response.city} is ${part.functionResponse.response.sky}.` },
        ],
      },
      usage: { inputTokens: contents.length * 8, outputTokens: 9 },
    };
  }
  const turn = turnOf(part);
  return {
    content: {
      role: 'model',
      parts: [{ functionCall: { id: `call_${turn}`, name: 'weather', args: { city: `city-${turn % 7}` } } }],
    },
    usage: { inputTokens: contents.length * 8, outputTokens: 6 },
  };
}

const turnOfText = (part) => Number(/turn (\d+)/.exec(part?.text ?? '')?.[1] ?? 0);
const weather = ({ city }) => ({ city, sky: city.endsWith('3') ? 'rainy' : 'sunny' });

class InstantLlm extends BaseLlm {
  constructor() {
    super('instant');
  }

  async *generateContentAsync(request) {
    yield { ...answer(request.contents, turnOfText), turnComplete: true, finishReason: 'STOP' };
  }
}

/** Grows one Troupe session by `turns` turns; returns the per-turn latencies (µs). */
async function troupeRound(sessionService, turns) {
  const tool = new FunctionTool({
    name: 'weather',
    description: 'The weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: (toolArgs, ctx) => {
      ctx.state.set('last_city', toolArgs.city);
      return weather(toolArgs);
    },
  });
  const agent = new LlmAgent({
    name: 'assistant',
    model: new InstantLlm(),
    instruction: 'Answer questions about the weather.',
    tools: [tool],
    outputKey: 'last_answer',
  });
  const runner = new Runner({ appName: APP, agent, sessionService });
  const timedTurn = async (sessionId, turn) => {
    const start = performance.now();
    const result = await runner.run({ userId: USER, sessionId, newMessage: `What is the weather, turn ${turn}?` });
    const us = (performance.now() - start) * 1000;
    if (result.status !== 'completed' || result.events.length !== EVENTS_PER_TURN - 1) {
      throw new Error(
        `turn ${turn} ended with status '${result.status}' and ${result.events.length} events${result.error ? `: ${result.error.message}` : ''}`,
      );
    }
    return us;
  };
  // With `reference`, each turn of the two measured windows is followed by a turn of a short
  // session started with that window: the same work at the same moment, so the ratio of the two
  // windows' reference turns shows how much the machine's load (not the session's length) moved.
  const grow = async (count, reference) => {
    const session = await sessionService.createSession({ appName: APP, userId: USER });
    const latencies = new Array(count);
    const control = { early: [], late: [] };
    let short;
    for (let turn = 0; turn < count; turn++) {
      latencies[turn] = await timedTurn(session.id, turn);
      const window =
        turn >= EARLY[0] && turn < EARLY[1] ? control.early : turn >= count - LATE_TURNS ? control.late : undefined;
      if (!reference || !window) continue;
      if (turn === EARLY[0] || turn === count - LATE_TURNS)
        short = await sessionService.createSession({ appName: APP, userId: USER });
      window.push(await timedTurn(short.id, window.length));
    }
    return { session, latencies, control };
  };
  // An uncounted session first, so the early turns of the measured one are not the JIT's warm-up.
  await grow(WARMUP_TURNS, false);
  gc();
  const { session, latencies, control } = await grow(turns, true);
  const stored = await sessionService.getSession({ appName: APP, userId: USER, sessionId: session.id });
  if (stored.events.length !== turns * EVENTS_PER_TURN)
    throw new Error(`the session holds ${stored.events.length} events, expected ${turns * EVENTS_PER_TURN}`);
  if (
    stored.state.last_answer !==
    `The weather in city-${(turns - 1) % 7} is ${weather({ city: `city-${(turns - 1) % 7}` }).sky}.`
  ) {
    throw new Error(`state.last_answer is ${JSON.stringify(stored.state.last_answer)}`);
  }
  await runner.close();
  return { latencies, control };
}

/** The same turns in plain JavaScript: events and messages kept in arrays, appended to, never re-read. */
async function floorRound(turns) {
  await floorSession(WARMUP_TURNS);
  gc();
  return { latencies: await floorSession(turns), control: undefined };
}

async function floorSession(turns) {
  const session = { events: [], messages: [], state: {} };
  const latencies = new Array(turns);
  let id = 0;
  const append = async (author, content, stateDelta = {}) => {
    const event = { id: `e${++id}`, author, timestamp: Date.now(), content, actions: { stateDelta } };
    session.events.push(event);
    Object.assign(session.state, stateDelta);
    session.messages.push(content);
    return event;
  };
  for (let turn = 0; turn < turns; turn++) {
    const start = performance.now();
    await append('user', { role: 'user', parts: [{ text: `What is the weather, turn ${turn}?` }] });
    const call = answer(session.messages, turnOfText);
    await append('assistant', call.content);
    const { id: callId, name, args: callArgs } = call.content.parts[0].functionCall;
    const response = weather(callArgs);
    await append(
      'assistant',
      { role: 'user', parts: [{ functionResponse: { id: callId, name, response } }] },
      { last_city: callArgs.city },
    );
    const reply = answer(session.messages, turnOfText);
    await append('assistant', reply.content, { last_answer: reply.content.parts[0].text });
    latencies[turn] = (performance.now() - start) * 1000;
  }
  if (session.events.length !== turns * EVENTS_PER_TURN) throw new Error(`floor: ${session.events.length} events`);
  return latencies;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Early (turns 5–55) and late (last 50) per-turn figures of one round, and the load control. */
function summarise({ latencies, control }) {
  const early = latencies.slice(EARLY[0], EARLY[1]);
  const late = latencies.slice(-LATE_TURNS);
  const controlRatio = control ? quantile(control.late, 0.5) / quantile(control.early, 0.5) : 1;
  return {
    control_ratio: controlRatio,
    ratio_load_adjusted: quantile(late, 0.5) / quantile(early, 0.5) / controlRatio,
    early_mean_us: mean(early),
    late_mean_us: mean(late),
    early_p50_us: quantile(early, 0.5),
    late_p50_us: quantile(late, 0.5),
    ratio: quantile(late, 0.5) / quantile(early, 0.5),
    ratio_mean: mean(late) / mean(early),
  };
}

function aggregate(store, rounds) {
  const pick = (field, digits = 1) => round(median(rounds.map((r) => r[field])), digits);
  return {
    bench: 'long-session',
    store,
    turns: args.turns,
    events: args.turns * EVENTS_PER_TURN,
    rounds: rounds.length,
    early_turns: `${EARLY[0]}-${EARLY[1]}`,
    late_turns: `${args.turns - LATE_TURNS}-${args.turns}`,
    early_mean_us: pick('early_mean_us'),
    late_mean_us: pick('late_mean_us'),
    early_p50_us: pick('early_p50_us'),
    late_p50_us: pick('late_p50_us'),
    ratio: pick('ratio', 2),
    ratio_min: round(Math.min(...rounds.map((r) => r.ratio)), 2),
    ratio_max: round(Math.max(...rounds.map((r) => r.ratio)), 2),
    ratio_mean: pick('ratio_mean', 2),
    control_ratio: pick('control_ratio', 2),
    ratio_load_adjusted: pick('ratio_load_adjusted', 2),
  };
}

async function measureStore(store, open) {
  const rounds = [];
  for (let r = 0; r < args.rounds; r++) {
    const { service, close } = await open(r);
    try {
      gc();
      rounds.push(summarise(await troupeRound(service, args.turns)));
      const last = rounds.at(-1);
      log(
        `${store} round ${r + 1}/${args.rounds}: late/early ${round(last.ratio, 2)} (median turn ${round(last.early_p50_us, 0)} → ${round(last.late_p50_us, 0)} µs; mean ${round(last.early_mean_us, 0)} → ${round(last.late_mean_us, 0)} µs)`,
      );
    } finally {
      await close();
    }
  }
  return aggregate(store, rounds);
}

const lines = [];
let failed = false;
const loadStart = loadavg().map((x) => round(x, 2));
log(
  `node ${process.version}, ${cpus().length} cpu(s), load average ${loadStart.join(' ')}; ${args.rounds} round(s) of ${args.turns} turns`,
);
try {
  const floorRounds = [];
  for (let r = 0; r < args.rounds; r++) {
    gc();
    floorRounds.push(summarise(await floorRound(args.turns)));
  }
  lines.push(aggregate('floor', floorRounds));

  if (args.only.includes('memory')) {
    lines.push(
      await measureStore('memory', async () => ({ service: new InMemorySessionService(), close: async () => {} })),
    );
  }
  if (args.only.includes('sqlite')) {
    const { SqliteSessionService } = await import(dist('sqlite'));
    const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-long-'));
    try {
      lines.push(
        await measureStore('sqlite', async (r) => {
          const service = new SqliteSessionService({ path: join(dir, `round-${r}.db`) });
          return { service, close: () => service.close() };
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (args.only.includes('postgres')) {
    if (!args.pg) {
      lines.push({
        bench: 'long-session',
        store: 'postgres',
        skipped: 'no URL: pass --pg URL or set TROUPE_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test)',
      });
    } else {
      const { PostgresSessionService } = await import(dist('postgres'));
      const schema = `troupe_bench_long_${Date.now().toString(36)}`;
      try {
        lines.push(
          await measureStore('postgres', async () => {
            const service = new PostgresSessionService({ connectionString: args.pg, schema });
            return { service, close: () => service.close() };
          }),
        );
      } finally {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: args.pg });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    }
  }
} catch (error) {
  failed = true;
  log(`FAILED: ${error instanceof Error ? error.stack : String(error)}`);
}

for (const line of lines) console.log(JSON.stringify(line));
console.log('');
console.log(
  `Per-turn time (median turn), last ${LATE_TURNS} turns ÷ turns ${EARLY[0]}–${EARLY[1]}; median of ${args.rounds} round(s); goal ≤ 1.5`,
);
console.log(
  `${'store'.padEnd(10)}${'turns 5–55'.padStart(14)}${'last 50'.padStart(12)}${'ratio'.padStart(8)}   (min..max)  mean ratio  control  load-adjusted`,
);
for (const l of lines) {
  if (l.skipped) {
    console.log(`${l.store.padEnd(10)}  skipped: ${l.skipped}`);
    continue;
  }
  const mark = l.store === 'floor' ? '' : l.ratio <= 1.5 ? '  ok' : '  MISS';
  console.log(
    `${l.store.padEnd(10)}${`${l.early_p50_us} µs`.padStart(14)}${`${l.late_p50_us} µs`.padStart(12)}${String(l.ratio).padStart(8)}   (${l.ratio_min}..${l.ratio_max})  ${String(l.ratio_mean).padStart(10)}  ${String(l.control_ratio).padStart(7)}  ${String(l.ratio_load_adjusted).padStart(13)}${mark}`,
  );
}
log(
  `load average at the end ${loadavg()
    .map((x) => round(x, 2))
    .join(' ')}`,
);
const missed = lines.some((l) => l.store !== 'floor' && !l.skipped && l.ratio > 1.5);
if (failed || (args.strict && missed)) process.exitCode = 1;

// ---- helpers ---------------------------------------------------------------------------------
function parseArgs(argv) {
  const out = {
    rounds: 3,
    turns: 500,
    only: ['memory', 'sqlite', 'postgres'],
    pg: process.env.TROUPE_TEST_PG_URL,
    build: true,
    strict: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--rounds') out.rounds = Number(argv[++i]);
    else if (a === '--turns') out.turns = Number(argv[++i]);
    else if (a === '--only') out.only = argv[++i].split(',');
    else if (a === '--pg') out.pg = argv[++i];
    else if (a === '--no-build') out.build = false;
    else if (a === '--strict') out.strict = true;
    else
      throw new Error(
        `unknown argument ${a}; use --rounds N, --turns N, --only memory,sqlite,postgres, --pg URL, --no-build, --strict`,
      );
  }
  if (!(out.rounds >= 1)) throw new Error('--rounds must be at least 1');
  if (!(Number.isInteger(out.turns) && out.turns >= EARLY[1] + LATE_TURNS))
    throw new Error(`--turns must be a whole number of at least ${EARLY[1] + LATE_TURNS}`);
  for (const s of out.only)
    if (!['memory', 'sqlite', 'postgres'].includes(s))
      throw new Error(`unknown store ${s}; use memory, sqlite or postgres`);
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

/** Builds the packages when a package's dist is missing or older than its sources. */
function ensureBuilt() {
  const stale = ['core', 'sqlite', 'postgres'].some((pkg) => {
    const dir = join(root, 'packages', pkg);
    const buildInfo = join(dir, 'dist', '.tsbuildinfo');
    return (
      !existsSync(dist(pkg)) || !existsSync(buildInfo) || newestMtime(join(dir, 'src')) > statSync(buildInfo).mtimeMs
    );
  });
  if (!stale) return;
  log('a dist is missing or older than its sources: running `npm run build` first');
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
