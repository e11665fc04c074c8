// Semantic memory (SPEC §19) per memory store, with the deterministic FakeEmbedder (no provider, so
// the time is the store's): InMemoryMemoryService, SqliteMemoryService with exact search and with
// sqlite-vec, and, with TROUPE_TEST_PG_URL, PostgresMemoryService (pgvector when the server has it,
// else exact in SQL; own schema, dropped after).
//
// - Search at 10k and 100k memories for one user (a second user holds 1,000 more, so every search
//   also filters by user): recall@5 (the share of the exact 5 nearest neighbours, computed in JS in
//   double precision from the same vectors, that the store returns in its first 5) and the latency
//   of searchMemory({ mode: 'vector', limit: 5 }) (p50/p95 over the queries, the query's embedding
//   included). A store whose loading or searching passes the time budget is reported as such.
// - Indexing per turn: one session grown turn by turn (a user message and a 20-word answer), added
//   after every turn; per add at 100 and at 2,000 events: texts embedded, embedding calls, ms.
// Prints one JSON line. Usage:
//   node --expose-gc bench/semantic-memory.mjs [--sizes 10000,100000] [--stores in_memory,sqlite_exact,sqlite_vec,pg]
//     [--queries 50] [--budget-s 240]
import console from 'node:console';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createEvent, InMemoryMemoryService } from '../packages/core/dist/index.js';
import { dotProduct, unitVector } from '../packages/core/dist/stores/index.js';
import { FakeEmbedder } from '../packages/core/dist/testing/index.js';
import { PostgresMemoryService } from '../packages/postgres/dist/index.js';
import { SqliteMemoryService } from '../packages/sqlite/dist/index.js';
import { TEXT } from './fake-model.mjs';
import { median, quantile, round } from './stats.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    stores: { type: 'string', default: 'in_memory,sqlite_exact,sqlite_vec,pg' },
    queries: { type: 'string', default: '50' },
    'budget-s': { type: 'string', default: '240' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const QUERIES = Number(args.queries);
const BUDGET_MS = Number(args['budget-s']) * 1000;
const APP = 'bench';
// About a real small embedding model's cost per vector (FakeEmbedder's own default is 64).
const DIMENSIONS = 256;
const pgUrl = process.env.TROUPE_TEST_PG_URL;
const dir = mkdtempSync(join(tmpdir(), 'troupe-semantic-memory-'));
const schemas = [];

const STORES = {
  in_memory: (embedder) => new InMemoryMemoryService({ embedder }),
  sqlite_exact: (embedder, n) =>
    new SqliteMemoryService({ path: join(dir, `exact-${n}.db`), embedder, vectorExtension: false }),
  sqlite_vec: (embedder, n) => new SqliteMemoryService({ path: join(dir, `vec-${n}.db`), embedder }),
  pg: (embedder) => {
    const schema = `troupe_bench_semantic_${Date.now().toString(36)}_${schemas.length}`;
    schemas.push(schema);
    return new PostgresMemoryService({ connectionString: pgUrl, schema, embedder });
  },
};
const stores = args.stores.split(',').filter((name) => name !== 'pg' || pgUrl);

// Memories: sentences of 6 words drawn (by a fixed generator) from 400 words, so texts differ and
// neighbours are not ties; queries: 4 words of the same vocabulary.
const WORDS = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}${'klmnprst'[i % 8]}`);
function generator(seed) {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const sentence = (next, words) =>
  Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');

/** Adds `n` memories for user `userId` in sessions of 1,000 events. */
async function load(service, userId, n, seed, deadline) {
  const next = generator(seed);
  const texts = [];
  for (let s = 0; s * 1000 < n; s++) {
    const events = [];
    for (let i = s * 1000; i < Math.min(n, (s + 1) * 1000); i++) {
      const text = sentence(next, 6);
      texts.push(text);
      events.push(createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } }));
    }
    await service.addSessionToMemory({
      id: `s${s}`,
      appName: APP,
      userId,
      state: {},
      events,
      lastUpdateTime: 0,
      version: events.length,
    });
    if (performance.now() > deadline) return undefined;
  }
  return texts;
}

/**
 * For each query, the memories at least as near as its 5th nearest (exact, in double precision):
 * a store's answer counts as right when it is among them, so ties at the 5th place are not misses.
 */
async function exactNeighbours(embedder, texts, queries) {
  const vectors = [];
  for (let i = 0; i < texts.length; i += 1000)
    for (const v of await embedder.embed(texts.slice(i, i + 1000))) vectors.push(unitVector(v));
  return (await embedder.embed(queries)).map((raw) => {
    const q = unitVector(raw);
    const scores = vectors.map((v) => dotProduct(v, q));
    const fifth = Float64Array.from(scores).sort().at(-5);
    return new Set(texts.filter((_, i) => scores[i] >= fifth - 1e-6));
  });
}

async function searchAt(name, n) {
  const embedder = new FakeEmbedder({ dimensions: DIMENSIONS });
  const service = STORES[name](embedder, n);
  const deadline = performance.now() + BUDGET_MS;
  try {
    const started = performance.now();
    const texts = await load(service, 'u', n, 1, deadline);
    if (!texts || !(await load(service, 'other', 1000, 2, deadline))) return { [`${name}_${n}`]: 'load over budget' };
    const loadS = (performance.now() - started) / 1000;
    const next = generator(3);
    const queries = Array.from({ length: QUERIES }, () => sentence(next, 4));
    const truth = await exactNeighbours(new FakeEmbedder({ dimensions: DIMENSIONS }), texts, queries);
    const ms = [];
    let found = 0;
    let asked = 0;
    for (const [i, query] of queries.entries()) {
      const t = performance.now();
      const { memories } = await service.searchMemory({ appName: APP, userId: 'u', query, mode: 'vector', limit: 5 });
      ms.push(performance.now() - t);
      asked++;
      for (const m of memories) if (truth[i].has(m.content.parts[0].text)) found++;
      if (performance.now() > deadline + BUDGET_MS && asked >= 5) break;
    }
    const prefix = `${name}_${n}`;
    return {
      [`${prefix}_recall_at_5`]: round(found / (asked * 5), 3),
      [`${prefix}_search_ms_p50`]: round(quantile(ms, 0.5), 2),
      [`${prefix}_search_ms_p95`]: round(quantile(ms, 0.95), 2),
      [`${prefix}_queries`]: asked,
      [`${prefix}_load_s`]: round(loadS, 1),
      ...(service.vectorSearch ? { [`${prefix}_vector_search`]: service.vectorSearch } : {}),
    };
  } finally {
    await service.close?.();
  }
}

const AT = [100, 2000];
const BLOCK = 20; // turns (40 events) measured around each size

/** Grows a session to 2,000 events, adding it after each turn; per add near each size: texts, calls, ms. */
async function indexingPerTurn(name, sessionId) {
  const counting = new FakeEmbedder({ dimensions: DIMENSIONS });
  const embed = counting.embed.bind(counting);
  let calls = 0;
  let embedded = 0;
  counting.embed = (texts, options) => {
    calls++;
    embedded += texts.length;
    return embed(texts, options);
  };
  const service = STORES[name](counting, `turns-${sessionId}`);
  const session = {
    id: sessionId,
    appName: APP,
    userId: 'turns',
    state: {},
    events: [],
    lastUpdateTime: 0,
    version: 0,
  };
  const out = {};
  let mark;
  try {
    for (let turn = 1; session.events.length < AT.at(-1); turn++) {
      session.events.push(
        createEvent({
          author: 'user',
          content: { role: 'user', parts: [{ text: `Turn ${turn}: the weather in city ${turn}?` }] },
        }),
      );
      session.events.push(createEvent({ author: 'assistant', content: { role: 'model', parts: [{ text: TEXT }] } }));
      session.version += 2;
      const size = AT.find((s) => s - BLOCK * 2 < session.events.length && session.events.length <= s);
      if (size !== undefined && session.events.length === size - BLOCK * 2 + 2)
        mark = { t: performance.now(), calls, embedded };
      await service.addSessionToMemory(session);
      if (size === session.events.length) {
        out[`${name}_ms_per_turn_${size}`] = round((performance.now() - mark.t) / BLOCK, 3);
        out[`${name}_embed_calls_per_turn_${size}`] = round((calls - mark.calls) / BLOCK, 2);
        out[`${name}_texts_embedded_per_turn_${size}`] = round((embedded - mark.embedded) / BLOCK, 2);
      }
    }
    out[`${name}_ratio_${AT[1]}_vs_${AT[0]}`] = round(
      out[`${name}_ms_per_turn_${AT[1]}`] / out[`${name}_ms_per_turn_${AT[0]}`],
      2,
    );
    return out;
  } finally {
    await service.close?.();
  }
}

try {
  const out = {
    framework: 'troupe',
    scenario: 'semantic-memory',
    dimensions: new FakeEmbedder({ dimensions: DIMENSIONS }).dimensions,
  };
  for (const name of stores) {
    // The median of 3 grown sessions (each on a fresh store) after one to warm up.
    await indexingPerTurn(name, 'warm-up');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await indexingPerTurn(name, `measured-${i}`));
    for (const key of Object.keys(runs[0])) out[key] = median(runs.map((run) => run[key]));
    out[`${name}_ratio_${AT[1]}_vs_${AT[0]}`] = round(
      out[`${name}_ms_per_turn_${AT[1]}`] / out[`${name}_ms_per_turn_${AT[0]}`],
      2,
    );
    for (const n of SIZES) {
      process.stderr.write(`semantic-memory: ${name} at ${n}\n`);
      Object.assign(out, await searchAt(name, n));
    }
  }
  out.notes = `FakeEmbedder; one user with N memories (6-word sentences) and another with 1,000; ${QUERIES} 4-word queries, mode 'vector', limit 5; recall@5 against the exact neighbours in double precision; indexing: mean per add over the ${BLOCK} turns ending at ${AT.join(' and ')} events, median of 3 sessions after one to warm up`;
  console.log(JSON.stringify(out));
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl && schemas.length > 0) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
