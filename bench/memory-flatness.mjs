// Cost of remembering one turn as a session grows: AddSessionToMemoryPlugin adds the run's session to
// the memory service after every turn (on in `troupe run` and `troupe api`), so that cost must not grow
// with the session. For InMemoryMemoryService and SqliteMemoryService (a file in a temp folder), one
// session grows turn by turn (a user message and an answer of 20 words); after each turn it is added
// to memory. Reported: the mean time of one add over a block of turns at 100 and at 2,000 events
// (median over 25 sessions in memory, 5 in the databases, after one to warm up), and their ratio (flat = near 1). With
// TROUPE_TEST_PG_URL set, PostgresMemoryService too (in a schema of its own, dropped afterwards).
// Prints one JSON line.
// Usage: node --expose-gc bench/memory-flatness.mjs
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import pg from 'pg';
import { createEvent, InMemoryMemoryService } from '../packages/core/dist/index.js';
import { PostgresMemoryService } from '../packages/postgres/dist/index.js';
import { SqliteMemoryService } from '../packages/sqlite/dist/index.js';
import { TEXT } from './fake-model.mjs';
import { median, round } from './stats.mjs';

const AT = [100, 2000];
const BLOCK = 20; // turns (40 events) timed around each size
// Measured sessions per service (medians): an in-memory add takes microseconds, so it takes more.
const SESSIONS = { in_memory: 25, sqlite: 5, pg: 5 };

/** Grows one session to the largest size, timing the adds of the BLOCK turns that end at each size. */
async function perTurnMs(service, id) {
  const session = { id, appName: 'bench', userId: 'u', state: {}, events: [], lastUpdateTime: 0, version: 0 };
  const say = (author, role, text) => {
    session.events.push(createEvent({ author, content: { role, parts: [{ text }] } }));
    session.version++;
  };
  const result = {};
  let started = 0;
  for (let turn = 1; session.events.length < AT.at(-1); turn++) {
    say('user', 'user', `Turn ${turn}: tell me about the weather in city ${turn}.`);
    say('assistant', 'model', TEXT);
    const size = AT.find((n) => n - BLOCK * 2 < session.events.length && session.events.length <= n);
    if (size !== undefined && session.events.length === size - BLOCK * 2 + 2) started = performance.now();
    await service.addSessionToMemory(session);
    if (size === session.events.length) result[size] = (performance.now() - started) / BLOCK;
  }
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'troupe-memory-flatness-'));
const pgUrl = process.env.TROUPE_TEST_PG_URL;
const schema = `troupe_bench_memory_${Date.now().toString(36)}`;
try {
  const out = { framework: 'troupe', scenario: 'memory-flatness' };
  const services = [
    ['in_memory', () => new InMemoryMemoryService()],
    ['sqlite', () => new SqliteMemoryService({ path: join(dir, 'memory.db') })],
  ];
  if (pgUrl) services.push(['pg', () => new PostgresMemoryService({ connectionString: pgUrl, schema })]);
  for (const [name, make] of services) {
    const service = make();
    await perTurnMs(service, 'warm-up'); // compiles the code paths first
    const samples = [];
    for (let i = 0; i < SESSIONS[name]; i++) samples.push(await perTurnMs(service, `measured-${i}`));
    const ms = Object.fromEntries(AT.map((n) => [n, median(samples.map((sample) => sample[n]))]));
    await service.close?.();
    for (const n of AT) out[`${name}_ms_per_turn_${n}`] = round(ms[n], 3);
    out[`${name}_ratio_${AT[1]}_vs_${AT[0]}`] = round(ms[AT[1]] / ms[AT[0]], 2);
  }
  out.notes = `one session grown turn by turn (user message + 20-word answer), added to memory after each turn; mean per add over the ${BLOCK} turns ending at ${AT.join(' and ')} events, median of ${SESSIONS.in_memory} (in memory) or ${SESSIONS.sqlite} sessions after one to warm up`;
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
